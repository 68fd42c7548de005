import PtxModel.Rel
import PtxModel.Relations
/-!
# The axioms (PTX ISA §8.10), one definition per function of `ptxkit/consistency/axioms.py`

Python's axioms return a `Violation` or `None`; here each returns `true` exactly when Python returns
`None` (the axiom holds). They live in the namespace `PtxModel.Axioms` because `causality` names
both a relation (§8.9.5) and an axiom (§8.10.6), as in Python's two modules.
-/

namespace PtxModel
namespace Axioms

/-- §8.10.1 Coherence: causality between overlapping writes implies coherence order. -/
def coherence (rels : Relations) : Bool :=
  let b := rels.base
  Mat.is_empty (Mat.diff (Mat.inter (Mat.filter rels.cause b.writes b.writes) b.loc) b.co)

/-- Monotone part of Coherence: causality W → W' while coherence order already says W' → W. -/
def coherence_contradicted (rels : Relations) : Bool :=
  let b := rels.base
  Mat.is_empty (Mat.inter (Mat.inter (Mat.filter rels.cause b.writes b.writes) b.loc) (Mat.inv b.co))

/-- §8.9.6: morally strong overlapping writes are ordered by coherence order one way or the other. -/
def coherence_ms_total (rels : Relations) : Bool :=
  let b := rels.base
  let ms_w := Mat.inter (Mat.filter b.morally_strong b.writes b.writes) b.loc
  Mat.is_empty (Mat.diff (Mat.diff ms_w b.co) (Mat.inv b.co))

/-- §8.10.2 Fence-SC: Fence-SC order cannot contradict causality order. -/
def fence_sc (rels : Relations) : Bool :=
  let b := rels.base
  Mat.is_empty (Mat.diff (Mat.inter (Mat.filter rels.cause b.fence_sc b.fence_sc) b.morally_strong)
                         rels.sync_fence)

/-- Monotone part of Fence-SC: two morally strong fence.sc cause each other. -/
def fence_sc_cyclic (rels : Relations) : Bool :=
  let b := rels.base
  let c := Mat.inter (Mat.filter rels.cause b.fence_sc b.fence_sc) b.morally_strong
  Mat.is_empty (Mat.inter c (Mat.inv c))

/-- §8.10.3 Atomicity: no morally strong write between an atomic's read and write in coherence. -/
def atomicity (rels : Relations) : Bool :=
  let b := rels.base
  let ms := b.morally_strong
  Mat.is_empty (Mat.inter (Mat.seq (Mat.inter ms b.fr) (Mat.inter ms b.co)) b.rmw)

/-- §8.10.4 No-Thin-Air: `acyclic(rf ∪ dep)`. -/
def no_thin_air (rels : Relations) : Bool :=
  Mat.acyclic (Mat.union rels.base.rf rels.base.dep)

/-- §8.10.5 SC-per-Location (PTX 6.0): `acyclic((morally-strong ∩ (rf ∪ co ∪ fr)) ∪ po-loc)`. -/
def sc_per_location (rels : Relations) : Bool :=
  let b := rels.base
  let com := Mat.union (Mat.union b.rf b.co) b.fr
  Mat.acyclic (Mat.union (Mat.inter b.morally_strong com) b.po_loc)

/-- §8.10.6 Causality: `irreflexive((rf ∪ fr) ; cause)`. -/
def causality (rels : Relations) : Bool :=
  let b := rels.base
  Mat.irreflexive (Mat.seq (Mat.union b.rf b.fr) rels.cause)

/-- The ISCA'22 Alloy variant `irreflexive((rf ∪ co ∪ fr)? ; cause)`. -/
def causality_alloy (rels : Relations) : Bool :=
  causality rels && Mat.irreflexive rels.cause && Mat.irreflexive (Mat.seq rels.base.co rels.cause)

/-- `AXIOMS[name]` (an unknown name fails). -/
def AXIOMS (name : String) (rels : Relations) : Bool :=
  match name with
  | "coherence" => coherence rels
  | "coherence-ms-total" => coherence_ms_total rels
  | "fence-sc" => fence_sc rels
  | "atomicity" => atomicity rels
  | "no-thin-air" => no_thin_air rels
  | "sc-per-location" => sc_per_location rels
  | "causality" => causality rels
  | "causality-alloy" => causality_alloy rels
  | _ => false

/-- `MONOTONE[name]`: the checks the explorer prunes partial executions with (absent name: holds). -/
def MONOTONE (name : String) (rels : Relations) : Bool :=
  match name with
  | "coherence" => coherence_contradicted rels
  | "fence-sc" => fence_sc_cyclic rels
  | "atomicity" => atomicity rels
  | "no-thin-air" => no_thin_air rels
  | "sc-per-location" => sc_per_location rels
  | "causality" => causality rels
  | "causality-alloy" => causality_alloy rels
  | _ => true

end Axioms
end PtxModel
