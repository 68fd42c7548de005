/-!
# The selectable models as data (mirrors `ptxkit/consistency/models.py`: `Model`, `MODELS`)
-/

namespace PtxModel

structure Model where
  name : String
  axioms : List String
  proxies : Bool
  cause_base_includes_po : Bool
  deriving Repr

/-- `ptx-7.5` (default): PTX ISA 7.5+ with proxies; Causality is `irreflexive((rf ∪ fr); cause)`. -/
def ptx_7_5 : Model :=
  { name := "ptx-7.5",
    axioms := ["coherence", "coherence-ms-total", "fence-sc", "atomicity", "no-thin-air", "causality"],
    proxies := true, cause_base_includes_po := true }

/-- `ptx-6.0`: no proxies, base causality without bare po, and the SC-per-Location axiom. -/
def ptx_6_0 : Model :=
  { name := "ptx-6.0",
    axioms := ["coherence", "coherence-ms-total", "fence-sc", "atomicity", "no-thin-air",
               "sc-per-location", "causality"],
    proxies := false, cause_base_includes_po := false }

/-- `ptx-7.5-alloy`: the ISCA'22 Alloy Causality `irreflexive((rf ∪ co ∪ fr)?; cause)`. -/
def ptx_7_5_alloy : Model :=
  { name := "ptx-7.5-alloy",
    axioms := ["coherence", "coherence-ms-total", "fence-sc", "atomicity", "no-thin-air",
               "causality-alloy"],
    proxies := true, cause_base_includes_po := true }

def MODELS : List Model := [ptx_7_5, ptx_6_0, ptx_7_5_alloy]

def DEFAULT_MODEL : String := "ptx-7.5"

/-- The model called `name` (Python raises on an unknown name; here: `none`). -/
def get_model (name : String) : Option Model := List.find? (fun (m : Model) => m.name == name) MODELS

end PtxModel
