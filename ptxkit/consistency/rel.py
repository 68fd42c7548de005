"""Binary relations over event ids 0..n-1, in two interchangeable backends.

* :class:`BitRel` — one Python ``int`` bitset per row: composition and closure are word operations,
  which is what the explorer needs (thousands of candidates per test).
* :class:`PairRel` — a frozenset of pairs with networkx for closure and cycles: slow but obviously
  right; the property test ``tests/test_consistency_backends.py`` checks both give the same named
  relations and verdicts on random executions.

Event *sets* are ints used as bitmasks in both backends (bit i = event i).
The algebra mirrors cat: ``a | b``, ``a & b``, ``a - b``, ``a @ b`` (sequence ``a;b``), ``a.inv()``,
``a.plus()`` (``a+``), ``a.star()``, ``a.opt()`` (``a?``), ``a.filter(S, T)`` (``[S];a;[T]``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Protocol, TypeVar

import networkx as nx

Pair = tuple[int, int]
_R = TypeVar("_R", bound="Relation")


class Relation(Protocol):
    """The algebra both backends implement (operands of one operation share a backend)."""

    n: int

    def pairs(self) -> set[Pair]: ...
    def __contains__(self, p: Pair) -> bool: ...
    def __or__(self: _R, o: _R) -> _R: ...
    def __and__(self: _R, o: _R) -> _R: ...
    def __sub__(self: _R, o: _R) -> _R: ...
    def __matmul__(self: _R, o: _R) -> _R: ...
    def inv(self: _R) -> _R: ...
    def plus(self: _R) -> _R: ...
    def opt(self: _R) -> _R: ...
    def star(self: _R) -> _R: ...
    def filter(self: _R, src: int | None = None, dst: int | None = None) -> _R: ...
    def is_empty(self) -> bool: ...
    def reflexive_points(self) -> list[int]: ...
    def find_cycle(self) -> list[int] | None: ...
    def path(self, a: int, b: int) -> list[int] | None: ...


class Backend(Protocol):
    """A backend class: the constructors of :class:`Relation` values."""

    def from_pairs(self, n: int, pairs: Iterable[Pair]) -> Relation: ...
    def identity(self, n: int, mask: int) -> Relation: ...
    def cross(self, n: int, a: int, b: int) -> Relation: ...
    def from_predicate(self, n: int, pred: Callable[[int, int], bool]) -> Relation: ...
    def from_key(self, n: int, key: Callable[[int], Hashable | None]) -> Relation: ...
    def from_rows(self, n: int, rows: list[int]) -> Relation: ...


def bits(mask: int) -> Iterator[int]:
    """The set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class BitRel:
    """A relation as row bitsets: bit j of ``rows[i]`` ⇔ (i, j) ∈ R."""

    __slots__ = ("n", "rows")

    def __init__(self, n: int, rows: list[int] | None = None):
        self.n = n
        self.rows = rows if rows is not None else [0] * n

    # -- construction
    @classmethod
    def from_pairs(cls, n: int, pairs: Iterable[Pair]) -> BitRel:
        rows = [0] * n
        for a, b in pairs:
            rows[a] |= 1 << b
        return cls(n, rows)

    @classmethod
    def identity(cls, n: int, mask: int) -> BitRel:
        return cls(n, [(1 << i) if mask >> i & 1 else 0 for i in range(n)])

    @classmethod
    def cross(cls, n: int, a: int, b: int) -> BitRel:
        return cls(n, [b if a >> i & 1 else 0 for i in range(n)])

    @classmethod
    def from_predicate(cls, n: int, pred: Callable[[int, int], bool]) -> BitRel:
        rows = [0] * n
        for i in range(n):
            r = 0
            for j in range(n):
                if pred(i, j):
                    r |= 1 << j
            rows[i] = r
        return cls(n, rows)

    @classmethod
    def from_key(cls, n: int, key: Callable[[int], Hashable | None]) -> BitRel:
        """The equivalence "same key" on the events whose key is not None (O(n), not O(n²))."""
        groups: dict[Hashable, int] = {}
        keys = [key(i) for i in range(n)]
        for i, k in enumerate(keys):
            if k is not None:
                groups[k] = groups.get(k, 0) | (1 << i)
        return cls(n, [groups[k] if k is not None else 0 for k in keys])

    @classmethod
    def from_rows(cls, n: int, rows: list[int]) -> BitRel:
        """Row bitsets (bit j of ``rows[i]`` ⇔ (i, j)), as built by bit arithmetic elsewhere."""
        return cls(n, list(rows))

    def pairs(self) -> set[Pair]:
        return {(i, j) for i, r in enumerate(self.rows) for j in bits(r)}

    def __contains__(self, p: Pair) -> bool:
        return bool(self.rows[p[0]] >> p[1] & 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (BitRel, PairRel)) and self.pairs() == other.pairs()

    __hash__ = None  # type: ignore[assignment]  # mutable rows: not hashable

    def __repr__(self) -> str:
        return f"BitRel({sorted(self.pairs())})"

    # -- algebra
    def __or__(self, o: BitRel) -> BitRel:
        return BitRel(self.n, [a | b for a, b in zip(self.rows, o.rows)])

    def __and__(self, o: BitRel) -> BitRel:
        return BitRel(self.n, [a & b for a, b in zip(self.rows, o.rows)])

    def __sub__(self, o: BitRel) -> BitRel:
        return BitRel(self.n, [a & ~b for a, b in zip(self.rows, o.rows)])

    def __matmul__(self, o: BitRel) -> BitRel:
        orows = o.rows
        out = []
        for r in self.rows:
            acc = 0
            while r:
                low = r & -r
                acc |= orows[low.bit_length() - 1]
                r ^= low
            out.append(acc)
        return BitRel(self.n, out)

    def inv(self) -> BitRel:
        out = [0] * self.n
        for i, r in enumerate(self.rows):
            bit = 1 << i
            for j in bits(r):
                out[j] |= bit
        return BitRel(self.n, out)

    def plus(self) -> BitRel:
        rows = list(self.rows)
        for k in range(self.n):  # Warshall on bitsets
            kb, kr = 1 << k, rows[k]
            if not kr:
                continue
            for i in range(self.n):
                if rows[i] & kb:
                    rows[i] |= kr
        return BitRel(self.n, rows)

    def opt(self) -> BitRel:
        return BitRel(self.n, [r | (1 << i) for i, r in enumerate(self.rows)])

    def star(self) -> BitRel:
        return self.plus().opt()

    def filter(self, src: int | None = None, dst: int | None = None) -> BitRel:
        rows = self.rows
        if src is not None:
            rows = [r if src >> i & 1 else 0 for i, r in enumerate(rows)]
        if dst is not None:
            rows = [r & dst for r in rows]
        return BitRel(self.n, list(rows))

    # -- tests
    def is_empty(self) -> bool:
        return not any(self.rows)

    def reflexive_points(self) -> list[int]:
        return [i for i, r in enumerate(self.rows) if r >> i & 1]

    def find_cycle(self) -> list[int] | None:
        """A cycle ``[v0, v1, …]`` (v_last → v0 closes it) or None when acyclic (iterative DFS)."""
        color = [0] * self.n  # 0 new, 1 on stack, 2 done
        for s in range(self.n):
            if color[s]:
                continue
            stack = [(s, self.rows[s])]
            path = [s]
            color[s] = 1
            while stack:
                v, rest = stack[-1]
                if not rest:
                    stack.pop()
                    path.pop()
                    color[v] = 2
                    continue
                low = rest & -rest
                w = low.bit_length() - 1
                stack[-1] = (v, rest ^ low)
                if color[w] == 1:
                    return path[path.index(w):]
                if color[w] == 0:
                    color[w] = 1
                    stack.append((w, self.rows[w]))
                    path.append(w)
        return None

    def path(self, a: int, b: int) -> list[int] | None:
        """A shortest path a → … → b (BFS), for explanations."""
        prev: dict[int, int | None] = {a: None}
        frontier = [a]
        while frontier:
            nxt = []
            for v in frontier:
                for w in bits(self.rows[v]):
                    if w not in prev:
                        prev[w] = v
                        if w == b:
                            out = [b]
                            p = prev[b]
                            while p is not None:
                                out.append(p)
                                p = prev[p]
                            return out[::-1]
                        nxt.append(w)
            frontier = nxt
        return None


class PairRel:
    """The same algebra on a frozenset of pairs, closure and cycles by networkx (reference backend)."""

    __slots__ = ("n", "ps")

    def __init__(self, n: int, ps: Iterable[Pair] = ()):
        self.n = n
        self.ps = frozenset(ps)

    @classmethod
    def from_pairs(cls, n: int, pairs: Iterable[Pair]) -> PairRel:
        return cls(n, pairs)

    @classmethod
    def identity(cls, n: int, mask: int) -> PairRel:
        return cls(n, ((i, i) for i in bits(mask)))

    @classmethod
    def cross(cls, n: int, a: int, b: int) -> PairRel:
        return cls(n, ((i, j) for i in bits(a) for j in bits(b)))

    @classmethod
    def from_predicate(cls, n: int, pred: Callable[[int, int], bool]) -> PairRel:
        return cls(n, ((i, j) for i in range(n) for j in range(n) if pred(i, j)))

    @classmethod
    def from_rows(cls, n: int, rows: list[int]) -> PairRel:
        return cls(n, ((i, j) for i, r in enumerate(rows) for j in bits(r)))

    @classmethod
    def from_key(cls, n: int, key: Callable[[int], Hashable | None]) -> PairRel:
        keys = [key(i) for i in range(n)]
        return cls(n, ((i, j) for i in range(n) for j in range(n)
                       if keys[i] is not None and keys[i] == keys[j]))

    def pairs(self) -> set[Pair]:
        return set(self.ps)

    def __contains__(self, p: Pair) -> bool:
        return p in self.ps

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (BitRel, PairRel)) and self.pairs() == other.pairs()

    __hash__ = None  # type: ignore[assignment]  # equal to a BitRel: no hash consistent with that

    def __repr__(self) -> str:
        return f"PairRel({sorted(self.ps)})"

    def __or__(self, o: PairRel) -> PairRel:
        return PairRel(self.n, self.ps | o.ps)

    def __and__(self, o: PairRel) -> PairRel:
        return PairRel(self.n, self.ps & o.ps)

    def __sub__(self, o: PairRel) -> PairRel:
        return PairRel(self.n, self.ps - o.ps)

    def __matmul__(self, o: PairRel) -> PairRel:
        succ: dict[int, set[int]] = {}
        for a, b in o.ps:
            succ.setdefault(a, set()).add(b)
        return PairRel(self.n, ((a, c) for a, b in self.ps for c in succ.get(b, ())))

    def inv(self) -> PairRel:
        return PairRel(self.n, ((b, a) for a, b in self.ps))

    def _graph(self) -> nx.DiGraph:
        g = nx.DiGraph()
        g.add_nodes_from(range(self.n))
        g.add_edges_from(self.ps)
        return g

    def plus(self) -> PairRel:
        # reflexive=False: (v, v) only when a non-trivial cycle returns to v — exactly R+
        tc = nx.transitive_closure(self._graph(), reflexive=False)
        return PairRel(self.n, tc.edges())

    def opt(self) -> PairRel:
        return PairRel(self.n, self.ps | {(i, i) for i in range(self.n)})

    def star(self) -> PairRel:
        return self.plus().opt()

    def filter(self, src: int | None = None, dst: int | None = None) -> PairRel:
        return PairRel(self.n, ((a, b) for a, b in self.ps
                                if (src is None or src >> a & 1) and (dst is None or dst >> b & 1)))

    def is_empty(self) -> bool:
        return not self.ps

    def reflexive_points(self) -> list[int]:
        return sorted(a for a, b in self.ps if a == b)

    def find_cycle(self) -> list[int] | None:
        try:
            edges = nx.find_cycle(self._graph())
        except nx.NetworkXNoCycle:
            return None
        return [a for a, _ in edges]

    def path(self, a: int, b: int) -> list[int] | None:
        try:
            path: list[int] = nx.shortest_path(self._graph(), a, b)
            return path
        except nx.NetworkXNoPath:
            return None


BACKENDS: dict[str, Backend] = {"bits": BitRel, "pairs": PairRel}
