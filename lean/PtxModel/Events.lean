import PtxModel.Rel
/-!
# Events and candidate executions (PTX ISA §8.2 memory operations, §8.5 scopes, §8.6 proxies)

Mirrors `ptxkit/consistency/events.py`. `Event.id` is the event's index in `Execution.events`.
Initial writes have `thread = -1` (`INIT`). An RMW is an `R` and a `W` related by `rmw`. A barrier
event carries its resolved dynamic instance `inst` (Python `instance`; `instance` is a Lean keyword).
Program order is derived from `thread`/`pos`, as in Python.
-/

namespace PtxModel

inductive Kind where
  | R | W | F | B
  deriving DecidableEq, Repr

inductive Sem where
  | weak | relaxed | acquire | release | acq_rel | sc
  deriving DecidableEq, Repr

inductive Scope where
  | cta | cluster | gpu | sys
  deriving DecidableEq, Repr

/-- Proxies (§8.6); `const` is the constant proxy. -/
inductive Proxy where
  | generic | texture | surface | const
  deriving DecidableEq, Repr

/-- `sem` (fence.sc / fence.acq_rel …), `proxy` (fence.proxy.<p>), `aliasFence` (fence.proxy.alias). -/
inductive FenceKind where
  | sem | proxy | aliasFence
  deriving DecidableEq, Repr

inductive BarrierOp where
  | sync | arrive | red
  deriving DecidableEq, Repr

def INIT : Int := -1

structure Event where
  id : Nat
  thread : Int
  kind : Kind
  pos : Nat := 0
  location : Option String := none
  vaddr : Option String := none
  size : Nat := 4
  value : Option Int := none
  sem : Sem := Sem.weak
  scope : Option Scope := none
  proxy : Proxy := Proxy.generic
  fence_kind : Option FenceKind := none
  barrier_id : Option Nat := none
  barrier_op : Option BarrierOp := none
  inst : Option Nat := none
  cta : Nat := 0
  cluster : Nat := 0
  gpu : Nat := 0
  deriving Repr

namespace Event

def dummy : Event := { id := 0, thread := INIT, kind := Kind.F }

def is_init (e : Event) : Bool := e.thread == INIT

def is_mem (e : Event) : Bool := e.kind == Kind.R || e.kind == Kind.W

/-- Strong operation (§8.4): a fence, or a non-weak access. Barriers are not strong. An RMW's
halves may carry the atomic's own `sem` (atom.acquire's write: `Sem.acquire`): still strong, as in
Python (`sem != "weak"`). -/
def is_strong (e : Event) : Bool :=
  match e.kind with
  | Kind.F => true
  | Kind.W => e.sem != Sem.weak
  | Kind.R => e.sem != Sem.weak
  | Kind.B => false

def is_sem_fence (e : Event) : Bool := e.kind == Kind.F && e.fence_kind == some FenceKind.sem

/-- Release semantics (§8.8): st.release, atom.release/acq_rel, fence.acq_rel/sc. -/
def is_release (e : Event) : Bool :=
  match e.kind with
  | Kind.W => e.sem == Sem.release || e.sem == Sem.acq_rel || e.sem == Sem.sc
  | Kind.F => is_sem_fence e && (e.sem == Sem.acq_rel || e.sem == Sem.sc || e.sem == Sem.release)
  | _ => false

/-- Acquire semantics (§8.8): ld.acquire, atom.acquire/acq_rel, fence.acq_rel/sc. -/
def is_acquire (e : Event) : Bool :=
  match e.kind with
  | Kind.R => e.sem == Sem.acquire || e.sem == Sem.acq_rel || e.sem == Sem.sc
  | Kind.F => is_sem_fence e && (e.sem == Sem.acq_rel || e.sem == Sem.sc || e.sem == Sem.acquire)
  | _ => false

def is_fence_sc (e : Event) : Bool := is_sem_fence e && e.sem == Sem.sc

/-- Same CTA (`cta_key` in Python: the pair (gpu, cta)). -/
def same_cta (a b : Event) : Bool := a.gpu == b.gpu && a.cta == b.cta

end Event

structure Execution where
  events : List Event
  rf : List (Nat × Nat) := []
  co : List (Nat × Nat) := []
  rmw : List (Nat × Nat) := []
  addr : List (Nat × Nat) := []
  data : List (Nat × Nat) := []
  ctrl : List (Nat × Nat) := []
  /-- The Fence-SC order (§8.9.3) as pairs of fence.sc events; `none`: `check` tries every order. -/
  sc_order : Option (List (Nat × Nat)) := none
  /-- Barrier synchronisation edges as the explorer's barrier schedule produced them (§8.9.4);
  `none`: derived from the barrier events' instances, as Python's `sync_barrier` does. -/
  sync_barrier : Option (List (Nat × Nat)) := none
  deriving Repr

namespace Execution

def size (ex : Execution) : Nat := List.length ex.events

def ev (ex : Execution) (i : Nat) : Event := nthD Event.dummy ex.events i

/-- Program order (§8.9.1): events of one thread ordered by `pos`; initial writes are in no thread. -/
def po (ex : Execution) : Mat :=
  Mat.tabulate (size ex) (fun i j =>
    let a := ev ex i
    let b := ev ex j
    !(Event.is_init a) && a.thread == b.thread && decide (a.pos < b.pos))

end Execution

end PtxModel
