"""The vocabulary of the PTX memory model (PTX ISA 9.x chapter 8), defined once.

Every package that speaks about memory-model events — the checker (``ptxkit.consistency``), the
explorer's oracle (``ptxkit.explore``), the obligation writers (``ptxkit.export``) — takes its names
and its classifications from here:

* :class:`Kind` — event kinds: ``R`` read, ``W`` write, ``F`` fence, ``B`` barrier operation;
* :class:`Sem` — the ``.sem`` of an operation (§8.4): weak, relaxed, acquire, release, acq_rel, sc;
* :class:`Scope` — ``.cta`` ⊂ ``.cluster`` ⊂ ``.gpu`` ⊂ ``.sys`` (§8.5);
* :class:`Proxy` — generic, texture, surface, constant (§8.6);
* :class:`FenceKind`, :class:`BarrierOp` — which fence (``fence.sc|acq_rel``, ``fence.proxy.<p>``,
  ``fence.proxy.alias``) and which barrier operation (sync, arrive, red);
* the predicates :func:`is_strong`, :func:`is_release`, :func:`is_acquire`, :func:`is_fence_sc`,
  :func:`scope_includes` (§8.4, §8.5, §8.8) and :func:`rmw_split`, the one mapping of an atomic's
  ``.sem`` to the semantics of its read and write halves.

The enums are ``str`` enums: a member equals (and hashes like) its PTX spelling, so
``Sem.acquire == "acquire"`` and existing string-keyed tables keep working; ``str()``/``format()``
give the spelling. The SMT writer builds its event tags from these predicates, and
``tests/test_export_lean.py`` checks the Lean library's ``is_strong``/``is_release``/``is_acquire``
against them.
"""

from __future__ import annotations

from collections.abc import Hashable
from enum import Enum
from typing import NamedTuple, TypeVar

_S = TypeVar("_S", bound="_Spelled")


class _Spelled(str, Enum):
    """A str enum whose ``str``/``format`` are the PTX spelling (Python 3.10 and 3.12 alike)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    @classmethod
    def parse(cls: type[_S], text: str, what: str) -> _S:
        """The member spelled ``text`` (or ``text`` itself, a member already); ``ValueError`` naming
        ``what`` and the choices otherwise. A dict lookup: events are built by the thousand."""
        member = cls._value2member_map_.get(text)  # str members hash and compare like their spelling
        if member is None:
            raise ValueError(f"{what} {text!r} not in {tuple(m.value for m in cls)}")
        return member  # type: ignore[return-value]


class Kind(_Spelled):
    """Event kinds: ``R`` read and ``W`` write (§8.2 memory operations; an atomic is one of each),
    ``F`` fence and ``B`` barrier operation (§9.7.13)."""

    R = "R"
    W = "W"
    F = "F"
    B = "B"


class Sem(_Spelled):
    """The ``.sem`` of an operation (§8.4). ``.weak`` and plain accesses are not strong."""

    weak = "weak"
    relaxed = "relaxed"
    acquire = "acquire"
    release = "release"
    acq_rel = "acq_rel"
    sc = "sc"


class Scope(_Spelled):
    """Scopes (§8.5), each including the ones before it."""

    cta = "cta"
    cluster = "cluster"
    gpu = "gpu"
    sys = "sys"

    def group(self, p: Placement) -> Hashable:
        """The key a thread at ``p`` shares with exactly the threads this scope includes (§8.5)."""
        if self is Scope.cta:
            return (p.gpu, p.cta)
        if self is Scope.cluster:
            return (p.gpu, p.cluster)
        if self is Scope.gpu:
            return p.gpu
        return ()


class Proxy(_Spelled):
    """Proxies (§8.6): the path a memory operation takes."""

    generic = "generic"
    texture = "texture"
    surface = "surface"
    constant = "constant"


class FenceKind(_Spelled):
    """``sem``: fence.sc / fence.acq_rel / membar; ``proxy``: fence.proxy.<p>; ``alias``:
    fence.proxy.alias (§8.6)."""

    sem = "sem"
    proxy = "proxy"
    alias = "alias"


class BarrierOp(_Spelled):
    """``sync`` (arrive and wait: one event), ``arrive`` (arrive only), ``red`` (like sync)."""

    sync = "sync"
    arrive = "arrive"
    red = "red"


# the spellings, in the vocabulary's order (for messages, and callers that list the choices)
KINDS = tuple(k.value for k in Kind)
SEMS = tuple(s.value for s in Sem)
SCOPES = tuple(s.value for s in Scope)
PROXIES = tuple(p.value for p in Proxy)
FENCE_KINDS = tuple(f.value for f in FenceKind)
BARRIER_OPS = tuple(b.value for b in BarrierOp)

# an event's vocabulary fields, in the order they are checked: (field, enum, label, may be None);
# ``{}`` in a label is the caller's prefix (``"event "`` for Event, ``""`` for the obligations' events)
_EVENT_FIELDS: tuple[tuple[str, type[_Spelled], str, bool], ...] = (
    ("kind", Kind, "{}kind", False),
    ("sem", Sem, "{}sem", False),
    ("scope", Scope, "{}scope", True),
    ("proxy", Proxy, "{}proxy", False),
    ("fence_kind", FenceKind, "fence kind", True),
    ("barrier_op", BarrierOp, "barrier op", True),
)


def parse_event_fields(event: object, prefix: str) -> None:
    """Replace the vocabulary fields of the frozen dataclass ``event`` (kind, sem, scope, proxy,
    fence_kind, barrier_op) by their members, whatever spelling the caller used; ``ValueError``
    names the first bad one (labels prefixed by ``prefix``)."""
    for name, enum, label, optional in _EVENT_FIELDS:
        value = getattr(event, name)
        if value is not None or not optional:
            object.__setattr__(event, name, enum.parse(value, label.format(prefix)))


# the explorer's oracle tags proxies with Dat3M's abbreviations
PROXY_BY_TAG: dict[str, Proxy] = {"GEN": Proxy.generic, "SUR": Proxy.surface, "TEX": Proxy.texture,
                                  "CON": Proxy.constant}

# semantics carrying release (§8.8) on a write / a fence, acquire on a read / a fence
_RELEASE = frozenset((Sem.release, Sem.acq_rel, Sem.sc))
_ACQUIRE = frozenset((Sem.acquire, Sem.acq_rel, Sem.sc))


def is_strong(kind: str, sem: str) -> bool:
    """Strong operation (§8.4): every fence, and every access that is not ``.weak`` (atomics are
    relaxed or stronger). Barriers are not fences for morally-strong purposes (they synchronize by
    §8.9.4 directly)."""
    if kind == Kind.F:
        return True
    if kind in (Kind.R, Kind.W):
        return sem != Sem.weak
    return False


def is_release(kind: str, sem: str, fence_kind: str | None = None) -> bool:
    """Release semantics (§8.8): a write with ``.release``/``.acq_rel`` (``.sc``: see :func:`rmw_split`),
    or a ``fence.release|acq_rel|sc``."""
    return _carries(kind, sem, fence_kind, Kind.W, _RELEASE)


def is_acquire(kind: str, sem: str, fence_kind: str | None = None) -> bool:
    """Acquire semantics (§8.8): a read with ``.acquire``/``.acq_rel``, or a ``fence.acquire|acq_rel|sc``."""
    return _carries(kind, sem, fence_kind, Kind.R, _ACQUIRE)


def _carries(kind: str, sem: str, fence_kind: str | None, access: Kind, sems: frozenset[Sem]) -> bool:
    """An ``access`` (the write for release, the read for acquire) or a fence.sem with one of ``sems``."""
    if kind == access:
        return sem in sems
    if kind == Kind.F:
        return fence_kind == FenceKind.sem and sem in sems
    return False


def is_fence_sc(kind: str, sem: str, fence_kind: str | None = None) -> bool:
    """A ``fence.sc`` (§8.9.3 Fence-SC order relates these)."""
    return kind == Kind.F and fence_kind == FenceKind.sem and sem == Sem.sc


def rmw_split(sem: str) -> tuple[Sem, Sem]:
    """The semantics of the read and the write half of an atomic ``atom``/``red`` with ``.sem``.

    ISA §9.7.13.5 (``atom``): ``.sem`` is one of ``.relaxed``, ``.acquire``, ``.release``,
    ``.acq_rel`` (absent: ``.relaxed``); §8.8: an ``.acquire`` atomic's read is an acquire operation,
    a ``.release`` atomic's write a release operation, ``.acq_rel`` both — the other half is a
    strong (relaxed) operation. ``.sc`` is not an ``atom`` qualifier; where a litmus test spells one,
    it is read as the strongest an atomic can be, ``.acq_rel`` (the PTX mapping of a C++ seq_cst RMW
    is ``fence.sc; atom.acq_rel``, the fence being a separate instruction). ``.weak`` is no atomic's
    qualifier either; it is kept as written (weak halves), as the explorer always did."""
    s = Sem.parse(sem, "atomic sem")
    if s in (Sem.acq_rel, Sem.sc):
        return Sem.acquire, Sem.release
    if s == Sem.acquire:
        return Sem.acquire, Sem.relaxed
    if s == Sem.release:
        return Sem.relaxed, Sem.release
    return s, s


class Placement(NamedTuple):
    """Where a thread runs (§8.5): two threads share a CTA iff equal ``(gpu, cta)``, a cluster iff
    equal ``(gpu, cluster)`` (``cluster`` any hashable key naming the cluster)."""

    gpu: int
    cluster: Hashable
    cta: int


def scope_includes(scope: str | None, a: Placement, b: Placement) -> bool:
    """Does an operation with ``scope`` executed at ``a`` include the thread at ``b`` (§8.5)?
    ``scope`` None (a weak access, a proxy fence) includes no other thread. (Initial writes are weak,
    so they never take part in a pair where this matters.)"""
    if scope is None:
        return False
    level = Scope.parse(scope, "scope")
    return level.group(a) == level.group(b)


__all__ = ["BARRIER_OPS", "FENCE_KINDS", "KINDS", "PROXIES", "PROXY_BY_TAG", "SCOPES", "SEMS", "BarrierOp",
           "FenceKind", "Kind", "Placement", "Proxy", "Scope", "Sem", "is_acquire", "is_fence_sc", "is_release",
           "is_strong", "parse_event_fields", "rmw_split", "scope_includes"]
