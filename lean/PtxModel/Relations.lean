import PtxModel.Rel
import PtxModel.Events
import PtxModel.Model
/-!
# Derived relations (PTX ISA §8.7–§8.9), one definition per function of
`ptxkit/consistency/relations.py`, with the same names and arguments.

`Base` holds the primitive relations and event sets of one execution (Python: `Base`, its `rels`
dictionary being plain fields here); `derive` adds the relations that depend on the Fence-SC order
and returns `Relations`.
-/

namespace PtxModel

/-- Does `a`'s scope include the thread executing `b` (§8.5: cta ⊂ cluster ⊂ gpu ⊂ sys)? -/
def scope_includes (a b : Event) : Bool :=
  match a.scope with
  | none => false
  | some Scope.cta => a.gpu == b.gpu && a.cta == b.cta
  | some Scope.cluster => a.gpu == b.gpu && a.cluster == b.cluster
  | some Scope.gpu => a.gpu == b.gpu
  | some Scope.sys => true

structure Base where
  ex : Execution
  model : Model
  n : Nat
  reads : Row
  writes : Row
  mem : Row
  fences : Row
  fence_sc : Row
  barriers : Row
  generic : Row
  alias_fences : Row
  strong : Row
  strong_write : Row
  strong_read : Row
  release : Row
  acquire : Row
  po : Mat
  rf : Mat
  co : Mat
  fr : Mat
  rmw : Mat
  dep : Mat
  loc : Mat
  vloc : Mat
  same_proxy : Mat
  same_size : Mat
  scta : Mat
  sr : Mat
  po_loc : Mat
  po_vloc : Mat
  id : Mat
  morally_strong : Mat
  observation : Mat
  release_pattern : Mat
  acquire_pattern : Mat
  sync_ra : Mat
  sync_barrier : Mat

/-- The event set `{ i | p (event i) }`. -/
def mask (ex : Execution) (p : Event → Bool) : Row := List.map p ex.events

/-- Barrier event → its instance key (gpu, cta, barrier id, instance); `none` for other events.
Exported executions carry every barrier's resolved instance (Python resolves `None` the same way). -/
def barrier_instances (ex : Execution) : List (Option (Nat × Nat × Nat × Nat)) :=
  List.map (fun (e : Event) =>
    match e.kind, e.barrier_id, e.inst with
    | Kind.B, some bid, some k => some (e.gpu, e.cta, bid, k)
    | _, _, _ => none) ex.events

/-- §8.7 morally strong: (1) related in program order, or both strong with scopes including each
other's thread; (2) [v7.5] the same proxy; (3) memory operations overlap completely. -/
def morally_strong (b : Base) : Mat :=
  let ms1 := Mat.union (Mat.union b.po (Mat.inv b.po)) (Mat.inter (Mat.cross b.n b.strong b.strong) b.sr)
  let both_mem := Mat.cross b.n b.mem b.mem
  let all_ := rowAll b.n
  let ms3 := Mat.union (Mat.inter (Mat.inter both_mem b.vloc) b.same_size)
                       (Mat.diff (Mat.cross b.n all_ all_) both_mem)
  Mat.diff (Mat.inter (Mat.inter ms1 b.same_proxy) ms3) b.id

/-- §8.9.2 observation: `(ms ∩ rf) ; (rmw ; ms ∩ rf)*`. -/
def observation (b : Base) : Mat :=
  let msrf := Mat.inter b.morally_strong b.rf
  Mat.seq msrf (Mat.star (Mat.seq b.rmw msrf))

/-- §8.8 release pattern, as (first operation, the pattern's strong write). -/
def release_pattern (b : Base) : Mat :=
  let same := Mat.opt b.po_vloc
  let rel_w := Mat.filter same (rowAnd b.release b.writes) b.strong_write
  let fence := Mat.filter b.po (rowAnd b.release b.fences) b.strong_write
  Mat.union rel_w fence

/-- §8.8 acquire pattern, as (the pattern's strong read, last operation). -/
def acquire_pattern (b : Base) : Mat :=
  let same := Mat.opt b.po_vloc
  let acq_r := Mat.filter same b.strong_read (rowAnd b.acquire b.reads)
  let fence := Mat.filter b.po b.strong_read (rowAnd b.acquire b.fences)
  Mat.union acq_r fence

/-- §8.9.4 a release pattern synchronizes with an acquire pattern it is observed by, when the
first and last operations are morally strong. -/
def sync_release_acquire (b : Base) : Mat :=
  Mat.inter b.morally_strong (Mat.seq (Mat.seq b.release_pattern b.observation) b.acquire_pattern)

/-- §8.9.4 a barrier arrival synchronizes with the waits (sync/red) of the same instance, same CTA.
When the execution carries explicit edges (an explorer's barrier schedule) those are used, restricted
to one CTA as Dat3M's `syncbar & scta`. -/
def sync_barrier (b : Base) : Mat :=
  match b.ex.sync_barrier with
  | some edges => Mat.inter (Mat.from_pairs b.n edges) b.scta
  | none =>
    let inst := barrier_instances b.ex
    Mat.tabulate b.n (fun i j =>
      match nthD none inst i, nthD none inst j with
      | some ki, some kj =>
        i != j && ki == kj &&
          ((Execution.ev b.ex j).barrier_op == some BarrierOp.sync ||
           (Execution.ev b.ex j).barrier_op == some BarrierOp.red)
      | _, _ => false)

/-- §8.9.3/§8.9.4 a fence.sc synchronizes with a morally strong fence.sc it precedes in Fence-SC
order (given pairs are transitively closed). -/
def sync_fence (b : Base) (sc_order : List (Nat × Nat)) : Mat :=
  let order := Mat.plus (Mat.from_pairs b.n sc_order)
  Mat.filter (Mat.inter order b.morally_strong) b.fence_sc b.fence_sc

/-- §8.9.5 base causality: `po? ; (sw ; po?)+`, plus bare `po` in v7.5. -/
def base_causality (b : Base) (sw : Mat) : Mat :=
  let po_opt := Mat.opt b.po
  let cb := Mat.seq po_opt (Mat.plus (Mat.seq sw po_opt))
  if b.model.cause_base_includes_po then Mat.union cb b.po else cb

/-- §8.9.5 proxy-preserved base causality (v7.5; the clauses of Dat3M's ptx-v7.5.cat). Pairs that
are not two memory operations keep their base causality. -/
def proxy_preserved_base_causality (b : Base) (cb : Mat) : Mat :=
  if b.model.proxies then
    let n := b.n
    let gen := b.generic
    let mem := b.mem
    let all_ := rowAll n
    let pfo := Mat.inter (Mat.inter (Mat.cross n b.fences mem) b.same_proxy) b.scta
    let into_fence := Mat.inter cb (Mat.inv pfo)
    let out_fence := Mat.inter cb pfo
    let via_alias := Mat.filter cb all_ b.alias_fences
    let c1 := Mat.filter (Mat.inter b.vloc cb) gen gen
    let c2 := Mat.filter (Mat.inter (Mat.inter (Mat.inter b.same_proxy b.scta) b.vloc) cb) mem mem
    let c3 := Mat.inter b.vloc (Mat.seq into_fence (Mat.filter cb all_ gen))
    let c4 := Mat.inter b.vloc (Mat.seq (Mat.filter cb gen all_) out_fence)
    let c5 := Mat.inter b.vloc (Mat.seq (Mat.seq into_fence cb) out_fence)
    let c6 := Mat.inter b.loc (Mat.filter (Mat.seq via_alias cb) gen gen)
    let c7 := Mat.inter b.loc (Mat.seq (Mat.seq into_fence via_alias) (Mat.filter cb all_ gen))
    let c8 := Mat.inter b.loc (Mat.seq (Mat.seq (Mat.filter via_alias gen all_) cb) out_fence)
    let c9 := Mat.inter b.loc (Mat.seq (Mat.seq (Mat.seq into_fence via_alias) cb) out_fence)
    let c := Mat.union (Mat.union (Mat.union c1 c2) (Mat.union c3 c4))
                       (Mat.union (Mat.union c5 c6) (Mat.union (Mat.union c7 c8) c9))
    Mat.union c (Mat.diff cb (Mat.filter cb mem mem))
  else cb

/-- §8.9.5 causality order: `ppcb ∪ observation ; ppcb` (v7.5);
v6.0: `cb ∪ observation ; (cb ∪ po-loc)`. -/
def causality (b : Base) (cb ppcb : Mat) : Mat :=
  if b.model.cause_base_includes_po then Mat.union ppcb (Mat.seq b.observation ppcb)
  else Mat.union cb (Mat.seq b.observation (Mat.union cb b.po_loc))

/-- The primitive relations of one execution, then the derived ones that need no Fence-SC order. -/
def base_relations (ex : Execution) (model : Model) : Base :=
  let n := Execution.size ex
  let ev := Execution.ev ex
  let reads := mask ex (fun e => e.kind == Kind.R)
  let writes := mask ex (fun e => e.kind == Kind.W)
  let fences := mask ex (fun e => e.kind == Kind.F)
  let release := mask ex Event.is_release
  let acquire := mask ex Event.is_acquire
  let strong := mask ex Event.is_strong
  let po := Execution.po ex
  let rf := Mat.from_pairs n ex.rf
  -- §8.9.6: coherence order is a partial order; generating pairs are closed (Dat3M: co = co+)
  let co := Mat.plus (Mat.from_pairs n ex.co)
  let loc := Mat.from_predicate n (fun i j =>
    Event.is_mem (ev i) && Event.is_mem (ev j) && (ev i).location == (ev j).location)
  let vloc := if model.proxies then
      Mat.from_predicate n (fun i j =>
        Event.is_mem (ev i) && Event.is_mem (ev j) && (ev i).vaddr == (ev j).vaddr)
    else loc
  let same_proxy := if model.proxies then
      Mat.from_predicate n (fun i j => (ev i).proxy == (ev j).proxy)
    else Mat.cross n (rowAll n) (rowAll n)
  let b0 : Base := {
    ex := ex, model := model, n := n,
    reads := reads, writes := writes, mem := rowOr reads writes, fences := fences,
    fence_sc := mask ex Event.is_fence_sc,
    barriers := mask ex (fun e => e.kind == Kind.B),
    generic := mask ex (fun e => Event.is_mem e && (e.proxy == Proxy.generic || !model.proxies)),
    alias_fences := mask ex (fun e => e.kind == Kind.F && e.fence_kind == some FenceKind.aliasFence),
    strong := strong,
    strong_write := rowAnd strong writes,
    strong_read := rowAnd strong reads,
    release := release, acquire := acquire,
    po := po, rf := rf, co := co,
    fr := Mat.seq (Mat.inv rf) co,
    rmw := Mat.from_pairs n ex.rmw,
    dep := Mat.from_pairs n (ex.addr ++ ex.data ++ ex.ctrl),
    loc := loc, vloc := vloc, same_proxy := same_proxy,
    same_size := Mat.from_predicate n (fun i j => (ev i).size == (ev j).size),
    scta := Mat.from_predicate n (fun i j =>
      !(Event.is_init (ev i)) && !(Event.is_init (ev j)) && Event.same_cta (ev i) (ev j)),
    sr := Mat.from_predicate n (fun i j => scope_includes (ev i) (ev j) && scope_includes (ev j) (ev i)),
    po_loc := Mat.inter po loc,
    po_vloc := Mat.inter po vloc,
    id := Mat.identity n (rowAll n),
    morally_strong := Mat.zero n, observation := Mat.zero n,
    release_pattern := Mat.zero n, acquire_pattern := Mat.zero n,
    sync_ra := Mat.zero n, sync_barrier := Mat.zero n }
  let b1 := { b0 with morally_strong := morally_strong b0 }
  let b2 := { b1 with observation := observation b1 }
  let b3 := { b2 with release_pattern := release_pattern b2, acquire_pattern := acquire_pattern b2 }
  let b4 := { b3 with sync_ra := sync_release_acquire b3 }
  { b4 with sync_barrier := sync_barrier b4 }

/-- All named relations of one execution for one Fence-SC order. -/
structure Relations where
  base : Base
  sync_fence : Mat
  sw : Mat
  base_causality : Mat
  proxy_preserved : Mat
  cause : Mat

/-- The relations depending on the Fence-SC order (sw, base / proxy-preserved causality, cause). -/
def derive (b : Base) (sc_order : List (Nat × Nat)) : Relations :=
  let sf := sync_fence b sc_order
  let sw := Mat.union (Mat.union b.sync_ra sf) b.sync_barrier
  let cb := base_causality b sw
  let ppcb := proxy_preserved_base_causality b cb
  { base := b, sync_fence := sf, sw := sw, base_causality := cb, proxy_preserved := ppcb,
    cause := causality b cb ppcb }

end PtxModel
