/-!
# Obligations

Root of the `Obligations` library: the lakefile builds every `Obligations/*.lean` file (its glob
`.andSubmodules`), so a file written by `ptxkit explore … --lean Obligations` needs no import here.
-/
