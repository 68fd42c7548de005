import Lake
open Lake DSL

-- The PTX memory model (PtxModel) and the proof obligations exported by `ptxkit explore --lean DIR`
-- (copy DIR/*.lean into Obligations/ to build them). Plain Lean 4 core: no Mathlib, no Batteries.
package ptxmodel where
  -- no options: the defaults are fine

@[default_target]
lean_lib PtxModel where
  -- the model library: PtxModel.lean and PtxModel/*.lean

@[default_target]
lean_lib Obligations where
  globs := #[.andSubmodules `Obligations]
