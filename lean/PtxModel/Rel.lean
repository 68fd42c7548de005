/-!
# Relations as Boolean matrices

A relation over the events `0 … n-1` of an execution is an `n × n` matrix of `Bool`, stored as a
list of rows (`Mat`); an event set is a `Row`. Every function here is defined by structural
recursion or from core `List` functions, so the whole model is computable: the obligations are
closed by `native_decide` (evaluation), and small ones by `decide`.

The operations mirror `ptxkit/consistency/rel.py` (`a | b`, `a & b`, `a - b`, `a @ b`, `a.inv()`,
`a.plus()`, `a.star()`, `a.opt()`, `a.filter(S, T)`).
-/

namespace PtxModel

/-- An event set, or one row of a relation matrix: entry `j` is `true` iff `j` is in it. -/
abbrev Row := List Bool

/-- A relation as a list of rows: `(i, j)` is in it iff entry `j` of row `i` is `true`. -/
abbrev Mat := List Row

/-- The `k`-th element of a list, or `d` past its end. -/
def nthD {α : Type} (d : α) : List α → Nat → α
  | [], _ => d
  | x :: _, 0 => x
  | _ :: xs, k + 1 => nthD d xs k

/-- Pointwise combination of two rows (the shorter one decides the length). -/
def zipRow (f : Bool → Bool → Bool) : Row → Row → Row
  | x :: xs, y :: ys => f x y :: zipRow f xs ys
  | _, _ => []

def rowAnd (s t : Row) : Row := zipRow (fun x y => x && y) s t
def rowOr (s t : Row) : Row := zipRow (fun x y => x || y) s t
def rowAll (n : Nat) : Row := List.replicate n true
def rowMem (s : Row) (i : Nat) : Bool := nthD false s i

namespace Mat

def get (m : Mat) (i j : Nat) : Bool := nthD false (nthD [] m i) j

def tabulate (n : Nat) (f : Nat → Nat → Bool) : Mat :=
  List.map (fun (i : Nat) => List.map (fun (j : Nat) => f i j) (List.range n)) (List.range n)

def size (m : Mat) : Nat := List.length m

def zero (n : Nat) : Mat := tabulate n (fun _ _ => false)

/-- `identity(n, mask)` in rel.py: the pairs `(i, i)` with `i` in the set. -/
def identity (n : Nat) (s : Row) : Mat := tabulate n (fun i j => i == j && rowMem s i)

/-- `cross(n, a, b)`: every pair from `a × b`. -/
def cross (n : Nat) (s t : Row) : Mat := tabulate n (fun i j => rowMem s i && rowMem t j)

def from_pairs (n : Nat) (ps : List (Nat × Nat)) : Mat :=
  tabulate n (fun i j => List.any ps (fun p => p.1 == i && p.2 == j))

def from_predicate (n : Nat) (f : Nat → Nat → Bool) : Mat := tabulate n f

def map2 (f : Bool → Bool → Bool) : Mat → Mat → Mat
  | r :: rs, s :: ss => zipRow f r s :: map2 f rs ss
  | _, _ => []

/-- `a | b` -/
def union (a b : Mat) : Mat := map2 (fun x y => x || y) a b
/-- `a & b` -/
def inter (a b : Mat) : Mat := map2 (fun x y => x && y) a b
/-- `a - b` -/
def diff (a b : Mat) : Mat := map2 (fun x y => x && !y) a b

/-- Row `i` of `a ; b`: the union of the rows of `b` selected by row `i` of `a`. -/
def compRow : Row → Mat → Row → Row
  | x :: xs, r :: rs, acc => compRow xs rs (if x then rowOr acc r else acc)
  | _, _, acc => acc

/-- `a @ b` in rel.py: relational composition `a ; b`. -/
def seq (a b : Mat) : Mat := List.map (fun (ra : Row) => compRow ra b (List.replicate (size b) false)) a

/-- `a.inv()` -/
def inv (a : Mat) : Mat := tabulate (size a) (fun i j => get a j i)

/-- `a.opt()`: `a ∪ id` -/
def opt (a : Mat) : Mat := tabulate (size a) (fun i j => i == j || get a i j)

/-- Iterated squaring `r ∪ r;r`, stopping at the fixpoint (at most `k` rounds). -/
def plusAux : Nat → Mat → Mat
  | 0, r => r
  | k + 1, r =>
    let r' := union r (seq r r)
    if r' == r then r else plusAux k r'

/-- `a.plus()`: the transitive closure `a+` (`size a + 1` squaring rounds are more than enough). -/
def plus (a : Mat) : Mat := plusAux (size a + 1) a

/-- `a.star()` -/
def star (a : Mat) : Mat := opt (plus a)

/-- `a.filter(S, T)`: `[S]; a; [T]`. -/
def filter (a : Mat) (s t : Row) : Mat :=
  tabulate (size a) (fun i j => rowMem s i && get a i j && rowMem t j)

/-- `a.is_empty()` -/
def is_empty (a : Mat) : Bool := List.all a (fun (row : Row) => List.all row (fun (x : Bool) => !x))

def irreflexive (a : Mat) : Bool := List.all (List.range (size a)) (fun i => !(get a i i))

/-- `a.find_cycle() is None` -/
def acyclic (a : Mat) : Bool := irreflexive (plus a)

end Mat

end PtxModel
