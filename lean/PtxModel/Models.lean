import PtxModel.Rel
import PtxModel.Events
import PtxModel.Model
import PtxModel.Relations
import PtxModel.Axioms
/-!
# The checking engine (mirrors `ptxkit/consistency/models.py`) and `valid`

`check ex model` is `true` iff the execution is consistent: every axiom of the model holds for the
execution's Fence-SC order, or — when the execution carries none — for some orientation of the
morally strong fence.sc pairs induced by a total order of the fence.sc events (§8.9.3: the order is
determined at run time, so it is chosen existentially), exactly as Python's `check`.

`valid model ex` (Lean only) adds well-formedness (`validate`) and completeness (every read reads
from exactly one write): the statement every exported witness is proved to satisfy.
-/

namespace PtxModel

/-- Insert `x` at every position of a list. -/
def insertAll (x : Nat) : List Nat → List (List Nat)
  | [] => [[x]]
  | y :: ys => (x :: y :: ys) :: List.map (fun (zs : List Nat) => y :: zs) (insertAll x ys)

/-- All permutations of a list. -/
def perms : List Nat → List (List Nat)
  | [] => [[]]
  | x :: xs => List.foldr (fun (p : List Nat) (acc : List (List Nat)) => insertAll x p ++ acc) [] (perms xs)

/-- Position of `x` in a list (its length when absent). -/
def indexOf (x : Nat) : List Nat → Nat
  | [] => 0
  | y :: ys => if x == y then 0 else indexOf x ys + 1

/-- Every orientation of the morally strong fence.sc pairs induced by a total order of the fence.sc
events (duplicates are harmless here); `[[]]` when there is nothing to order. -/
def sc_orders (rels_base : Base) : List (List (Nat × Nat)) :=
  let n := rels_base.n
  let fs := List.filter (fun (i : Nat) => rowMem rels_base.fence_sc i) (List.range n)
  let pairs := List.foldr (fun (a : Nat) (acc : List (Nat × Nat)) =>
      List.map (fun (b : Nat) => (a, b))
        (List.filter (fun (b : Nat) => decide (a < b) && Mat.get rels_base.morally_strong a b) fs) ++ acc) [] fs
  match pairs with
  | [] => [[]]
  | _ =>
    let involved := List.filter (fun (i : Nat) => List.any pairs (fun (p : Nat × Nat) => p.1 == i || p.2 == i)) fs
    List.map (fun (perm : List Nat) =>
      List.map (fun (p : Nat × Nat) => if decide (indexOf p.1 perm < indexOf p.2 perm) then p else (p.2, p.1)) pairs)
      (perms involved)

/-- Is the complete candidate execution consistent under the model? -/
def check (ex : Execution) (model : Model) : Bool :=
  let base := base_relations ex model
  let orders := (match ex.sc_order with | some o => [o] | none => sc_orders base)
  List.any orders (fun (order : List (Nat × Nat)) =>
    let rels := derive base order
    List.all model.axioms (fun (a : String) => Axioms.AXIOMS a rels))

/-- `true` unless a monotone axiom fails on the partial execution (Fence-SC order: given or empty). -/
def may_extend (partial_ : Execution) (model : Model) : Bool :=
  let rels := derive (base_relations partial_ model) (Option.getD partial_.sc_order [])
  List.all model.axioms (fun (a : String) => Axioms.MONOTONE a rels)

/-- Well-formedness (Python: the list of problems is empty): rf is write → read on one location and
no read reads from two writes; co relates writes of one location and is acyclic; rmw is a read
and a write of one thread. -/
def validate (ex : Execution) : Bool :=
  let ev := Execution.ev ex
  let n := Execution.size ex
  let rf_ok := List.all ex.rf (fun p =>
    (ev p.1).kind == Kind.W && (ev p.2).kind == Kind.R && (ev p.1).location == (ev p.2).location)
  let rf_once := List.all ex.rf (fun p => List.length (List.filter (fun (q : Nat × Nat) => q.2 == p.2) ex.rf) == 1)
  let co_ok := List.all ex.co (fun p =>
    (ev p.1).kind == Kind.W && (ev p.2).kind == Kind.W && (ev p.1).location == (ev p.2).location)
  let rmw_ok := List.all ex.rmw (fun p =>
    (ev p.1).kind == Kind.R && (ev p.2).kind == Kind.W && (ev p.1).thread == (ev p.2).thread)
  let in_range := List.all (ex.rf ++ ex.co ++ ex.rmw ++ ex.addr ++ ex.data ++ ex.ctrl)
    (fun p => decide (p.1 < n) && decide (p.2 < n))
  in_range && rf_ok && rf_once && co_ok && rmw_ok && Mat.acyclic (Mat.from_pairs n ex.co)

/-- Every read reads from some write (the execution is complete). -/
def complete (ex : Execution) : Bool :=
  List.all (List.range (Execution.size ex)) (fun i =>
    !((Execution.ev ex i).kind == Kind.R) || List.any ex.rf (fun p => p.2 == i))

/-- The statement of an allowed-outcome obligation: a well-formed, complete, consistent execution. -/
def valid (model : Model) (ex : Execution) : Bool :=
  validate ex && complete ex && check ex model

/-! ## Forbidden outcomes: every coherence order

An explorer's inconsistent candidate carries no coherence order (it tried them all), so a
forbidden-outcome claim quantifies over them: `co_choices ex total` lists, per location, every
acyclic relation between its non-initial writes (all orders of them, when the location's final value
is observed: `total`), each with the initial write first; `check` closes each (co = co+). -/

/-- All sublists of a list. -/
def sublists {α : Type} : List α → List (List α)
  | [] => [[]]
  | x :: xs =>
    let r := sublists xs
    r ++ List.map (fun (s : List α) => x :: s) r

/-- Consecutive pairs of a list: a chain a₀ → a₁ → … (Python: `zip(perm, perm[1:])`). Not
recursive, so there is no termination argument to get right. -/
def chain (l : List Nat) : List (Nat × Nat) := List.zip l (List.drop 1 l)

/-- The distinct elements of a list, first occurrences kept. -/
def dedup (l : List String) : List String :=
  List.foldl (fun (acc : List String) (x : String) =>
    if List.any acc (fun (y : String) => y == x) then acc else acc ++ [x]) [] l

/-- The coherence-order choices for one location. -/
def co_choices_loc (ex : Execution) (total : Bool) (l : String) : List (List (Nat × Nat)) :=
  let n := Execution.size ex
  let ws := List.filter (fun (i : Nat) =>
    (Execution.ev ex i).kind == Kind.W && (Execution.ev ex i).location == some l) (List.range n)
  let inits := List.filter (fun (i : Nat) => Event.is_init (Execution.ev ex i)) ws
  let others := List.filter (fun (i : Nat) => !(Event.is_init (Execution.ev ex i))) ws
  let init_edges := List.foldr (fun (i : Nat) (acc : List (Nat × Nat)) => List.map (fun (w : Nat) => (i, w)) others ++ acc) [] inits
  if total then
    List.map (fun (p : List Nat) => init_edges ++ chain p) (perms others)
  else
    let cands := List.foldr (fun (a : Nat) (acc : List (Nat × Nat)) =>
      List.map (fun (b : Nat) => (a, b)) (List.filter (fun (b : Nat) => b != a) others) ++ acc) [] others
    List.map (fun (s : List (Nat × Nat)) => init_edges ++ s)
      (List.filter (fun (s : List (Nat × Nat)) => Mat.acyclic (Mat.from_pairs n s)) (sublists cands))

/-- Every coherence-order choice of the execution (the product over its locations). -/
def co_choices (ex : Execution) (total : List String) : List (List (Nat × Nat)) :=
  let locs := dedup (List.foldr (fun (e : Event) (acc : List String) =>
    match e.kind, e.location with
    | Kind.W, some l => l :: acc
    | _, _ => acc) [] ex.events)
  List.foldr (fun (l : String) (acc : List (List (Nat × Nat))) =>
    List.foldr (fun (c : List (Nat × Nat)) (acc2 : List (List (Nat × Nat))) =>
      List.map (fun (rest : List (Nat × Nat)) => c ++ rest) acc ++ acc2) []
      (co_choices_loc ex (List.any total (fun t => t == l)) l)) [[]] locs

/-- Does the coherence order end every location of `finals` with the stated value (some write with
that value has no coherence successor)? -/
def final_ok (ex : Execution) (co : List (Nat × Nat)) (finals : List (String × Int)) : Bool :=
  List.all finals (fun (f : String × Int) =>
    List.any (List.range (Execution.size ex)) (fun (w : Nat) =>
      (Execution.ev ex w).kind == Kind.W && (Execution.ev ex w).location == some f.1 &&
        (Execution.ev ex w).value == some f.2 &&
        !(List.any co (fun (p : Nat × Nat) => p.1 == w))))

/-- The statement of a forbidden-outcome obligation about one candidate: well formed, complete,
and inconsistent for every coherence order (total on the observed locations `total`) that ends the
locations of `finals` with their stated values, and for its Fence-SC order (or every one). -/
def inconsistent_all_co (model : Model) (total : List String) (finals : List (String × Int))
    (ex : Execution) : Bool :=
  validate ex && complete ex &&
    List.all (co_choices ex total) (fun (c : List (Nat × Nat)) =>
      !(final_ok ex c finals) || !(check { ex with co := c } model))

end PtxModel
