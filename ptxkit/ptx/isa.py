"""The instruction table (PTX ISA 9.0 chapter 9): for every opcode, its family, operand roles
(which operands are written / read) and properties (memory, branch, float, atomic, sync …).

Instruction knowledge lives here as data, not in the grammar: the parser accepts any
``opcode{.mod}`` and passes ask this table. Unknown opcodes get a conservative default
(:data:`UNKNOWN`: operand 0 written, the rest read, ``known=False``) so a pass can report them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum

from ptxkit import ir
from ptxkit.ptx.types import ALL_TYPES, FLOAT_TYPES

# Fundamental-type modifiers (ISA §5.2.1) plus the packed/sub-byte spellings mma & co use.
TYPE_MODS = frozenset(ALL_TYPES | {"b1", "b4", "u4", "s4", "e2m1", "e2m3", "e3m2", "ue8m0", "ue4m3",
                                   "b1024", "s2f6x2"})
STATE_SPACES = ("global", "shared", "shared::cta", "shared::cluster", "local", "param", "param::entry",
                "param::func", "const", "generic", "tex")


@dataclass(frozen=True)
class OpInfo:
    """What ptxkit knows about one opcode (ISA section in ``section``).

    ``ndefs``: how many leading operands are written (the rest are read) — see :func:`defs` for
    the per-instruction refinements (stores, in-place accumulators, ``call``'s return list).
    ``rw``: leading operands that are both written and read (wgmma accumulators)."""

    opcode: str
    family: str
    section: str
    ndefs: int = 1
    memory: bool = False      # reads or writes memory (any state space)
    store: bool = False       # writes memory
    load: bool = False        # reads memory
    atomic: bool = False
    branch: bool = False      # transfers control within the function
    call: bool = False
    ret: bool = False         # leaves the function / thread (ret, exit, trap)
    sync: bool = False        # barrier, fence or other ordering/synchronisation effect
    float_capable: bool = False  # has floating-point variants (the FPSan rewrite looks at these)
    rw: int = 0
    known: bool = True


def _t(opcodes: str, proto: OpInfo) -> dict[str, OpInfo]:
    """One entry per opcode, each a copy of ``proto`` with its opcode filled in."""
    return {op: replace(proto, opcode=op) for op in opcodes.split()}


TABLE: dict[str, OpInfo] = {}
# integer / float arithmetic (ISA §9.7.1–§9.7.4)
TABLE |= _t("add sub mul mad fma div rem abs neg min max", OpInfo("", "arith", "9.7.1/9.7.3", float_capable=True))
TABLE |= _t("addc subc madc mul24 mad24 sad popc clz bfind fns brev bfe bfi bmsk szext dp4a dp2a",
            OpInfo("", "int", "9.7.1"))
TABLE |= _t("copysign rcp sqrt rsqrt sin cos lg2 ex2 tanh testp", OpInfo("", "float", "9.7.3", float_capable=True))
TABLE |= _t("set setp selp slct", OpInfo("", "compare", "9.7.7", float_capable=True))
TABLE |= _t("and or xor not cnot lop3 shf shl shr prmt", OpInfo("", "logic", "9.7.8"))
TABLE |= _t("mov shfl cvt cvta isspacep mapa getctarank elect activemask createpolicy", OpInfo("", "data", "9.7.9"))
TABLE["cvt"] = OpInfo("cvt", "convert", "9.7.9.21", float_capable=True)
TABLE["mov"] = OpInfo("mov", "data", "9.7.9.1", float_capable=True)
TABLE["shfl"] = OpInfo("shfl", "data", "9.7.9.6", float_capable=True)
# memory (ISA §9.7.9)
TABLE |= _t("ld ldu", OpInfo("", "memory", "9.7.9.8", memory=True, load=True, float_capable=True))
TABLE |= _t("st", OpInfo("", "memory", "9.7.9.10", ndefs=0, memory=True, store=True, float_capable=True))
TABLE |= _t("prefetch prefetchu discard applypriority", OpInfo("", "memory", "9.7.9.15", ndefs=0, memory=True))
TABLE |= _t("atom", OpInfo("", "atomic", "9.7.13.5", memory=True, load=True, store=True, atomic=True,
                           float_capable=True))
TABLE |= _t("red", OpInfo("", "atomic", "9.7.13.6", ndefs=0, memory=True, store=True, atomic=True,
                          float_capable=True))
TABLE |= _t("multimem", OpInfo("", "atomic", "9.7.13.7", ndefs=0, memory=True, atomic=True))
TABLE |= _t("cp", OpInfo("", "async-copy", "9.7.9.25", ndefs=0, memory=True, load=True, store=True))
TABLE |= _t("mbarrier", OpInfo("", "mbarrier", "9.7.13.15", memory=True, sync=True))
TABLE |= _t("tensormap", OpInfo("", "memory", "9.7.9.26", ndefs=0, memory=True, store=True))
TABLE |= _t("ldmatrix", OpInfo("", "matrix", "9.7.14.5.15", memory=True, load=True))
TABLE |= _t("stmatrix", OpInfo("", "matrix", "9.7.14.5.16", ndefs=0, memory=True, store=True))
TABLE |= _t("movmatrix", OpInfo("", "matrix", "9.7.14.5.17"))
# textures / surfaces (ISA §9.7.10, §9.7.11)
TABLE |= _t("tex tld4 suld", OpInfo("", "texture", "9.7.10", memory=True, load=True))
TABLE |= _t("txq suq", OpInfo("", "texture", "9.7.10.4"))  # attribute queries: no memory access
TABLE |= _t("sust sured", OpInfo("", "texture", "9.7.11", ndefs=0, memory=True, store=True))
# control flow (ISA §9.7.12)
TABLE |= _t("bra brx", OpInfo("", "control", "9.7.12.2", ndefs=0, branch=True))
TABLE |= _t("call", OpInfo("", "control", "9.7.12.3", ndefs=0, call=True))
TABLE |= _t("ret exit trap", OpInfo("", "control", "9.7.12.4", ndefs=0, ret=True))
# synchronisation (ISA §9.7.13)
TABLE |= _t("bar barrier membar fence nanosleep griddepcontrol setmaxnreg pmevent brkpt",
            OpInfo("", "sync", "9.7.13", ndefs=0, sync=True))
TABLE |= _t("vote match redux", OpInfo("", "warp", "9.7.13.9", sync=True))
TABLE |= _t("clusterlaunchcontrol", OpInfo("", "sync", "9.7.13.17", sync=True, memory=True))
# matrix multiply-accumulate (ISA §9.7.14–§9.7.16)
TABLE |= _t("wmma", OpInfo("", "matrix", "9.7.14.4", float_capable=True))
TABLE |= _t("mma", OpInfo("", "matrix", "9.7.14.5", float_capable=True))
TABLE |= _t("wgmma", OpInfo("", "matrix", "9.7.15", ndefs=0, float_capable=True))
TABLE |= _t("tcgen05", OpInfo("", "matrix", "9.7.16", ndefs=0, memory=True))
# video instructions (ISA §9.7.18)
TABLE |= _t("vadd vsub vabsdiff vmin vmax vshl vshr vmad vset vadd2 vsub2 vavrg2 vabsdiff2 vmin2 "
            "vmax2 vset2 vadd4 vsub4 vavrg4 vabsdiff4 vmin4 vmax4 vset4", OpInfo("", "video", "9.7.18"))

UNKNOWN = OpInfo("?", "unknown", "", known=False)

# opcodes whose first type modifier is the data (destination) type: cvt.rn.f32.f64 → f32
_FIRST_TYPE = frozenset({"cvt", "set", "mma", "wmma", "wgmma", "tex", "tld4", "suld", "dp4a", "dp2a",
                         "slct", "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad",
                         "vset", "tcgen05"})


class MemoryEffect(Enum):
    """What an instruction does to memory, in the memory model's terms (ISA §8.2 operation types):
    a read, a write, a read-modify-write (atomics and reductions, ISA §9.7.13.5–7), a fence
    (fence/membar, and the waits of asynchronous copies), a barrier (bar/barrier/mbarrier, ISA
    §9.7.13.1–§9.7.13.15), an asynchronous copy (a read and a write, ISA §9.7.9.25), or none (also
    for cache hints such as prefetch, which have no effect on values)."""

    NONE = "none"
    LOAD = "load"
    STORE = "store"
    RMW = "rmw"
    FENCE = "fence"
    BARRIER = "barrier"
    COPY = "copy"


# the subcommands of the multi-part opcodes, by the first modifier (ISA §9.7.13.7, §9.7.16)
_MULTIMEM = {"ld_reduce": MemoryEffect.LOAD, "st": MemoryEffect.STORE, "red": MemoryEffect.RMW}
_TCGEN05 = {"ld": MemoryEffect.LOAD, "st": MemoryEffect.STORE, "cp": MemoryEffect.COPY,
            "shift": MemoryEffect.COPY, "commit": MemoryEffect.FENCE, "wait": MemoryEffect.FENCE,
            "fence": MemoryEffect.FENCE}
# cp.async.commit_group / wait_group / wait_all and their bulk forms order earlier copies (§9.7.9.25)
_CP_WAITS = frozenset({"commit_group", "wait_group", "wait_all"})


def memory_effect(opcode: str, mods: tuple[str, ...] = ()) -> MemoryEffect:
    """The memory effect of ``opcode.mods`` (see :class:`MemoryEffect`)."""
    if opcode in ("fence", "membar"):
        return MemoryEffect.FENCE
    if opcode in ("bar", "barrier", "mbarrier"):
        return MemoryEffect.BARRIER
    if opcode == "multimem":
        return _MULTIMEM.get(mods[0] if mods else "", MemoryEffect.NONE)
    if opcode == "tcgen05":
        return _TCGEN05.get(mods[0] if mods else "", MemoryEffect.NONE)
    if opcode == "cp":
        return MemoryEffect.FENCE if _CP_WAITS.intersection(mods) else MemoryEffect.COPY
    if opcode == "sured":  # a reduction on surface memory (ISA §9.7.11.4)
        return MemoryEffect.RMW
    if opcode == "clusterlaunchcontrol":  # try_cancel writes its response to shared memory
        return MemoryEffect.STORE if mods[:1] == ("try_cancel",) else MemoryEffect.NONE
    i = info(opcode)
    if i.atomic:
        return MemoryEffect.RMW
    if i.load and not i.store:
        return MemoryEffect.LOAD
    if i.store and not i.load:
        return MemoryEffect.STORE
    return MemoryEffect.NONE


def info(opcode: str) -> OpInfo:
    """The table entry for an opcode (``UNKNOWN`` with the opcode filled in when not known)."""
    got = TABLE.get(opcode)
    if got is None:
        return OpInfo(opcode, "unknown", "", known=False)
    return got


def is_known(opcode: str) -> bool:
    return opcode in TABLE


def _opcodes(pred: Callable[[OpInfo], bool]) -> frozenset[str]:
    return frozenset(op for op, i in TABLE.items() if pred(i))


NO_DEST_OPCODES = _opcodes(lambda i: i.ndefs == 0)
"""Opcodes whose operand 0 is never a plain destination (stores, branches, calls, barriers, fences,
hints, in-place accumulators); :func:`defs` refines this per instruction."""
LOAD_OPCODES = frozenset(op for op in TABLE if memory_effect(op) is MemoryEffect.LOAD)
STORE_OPCODES = frozenset(op for op in TABLE if memory_effect(op) is MemoryEffect.STORE)
RMW_OPCODES = frozenset(op for op in TABLE if memory_effect(op) is MemoryEffect.RMW)
FLOAT_CAPABLE_OPCODES = _opcodes(lambda i: i.float_capable)


def type_mods(instr: ir.Instruction) -> list[str]:
    """The fundamental-type modifiers of an instruction, in written order."""
    return [m for m in instr.mods if m in TYPE_MODS]


def data_type(instr: ir.Instruction) -> str | None:
    """The instruction's data type: the destination type for conversions and multi-type
    instructions (``cvt.rn.f32.f64`` → ``f32``), otherwise the (last) type modifier
    (``add.rn.f32`` → ``f32``, ``mul.wide.s32`` → ``s32``)."""
    ts = type_mods(instr)
    if not ts:
        return None
    return ts[0] if instr.opcode in _FIRST_TYPE else ts[-1]


def is_float(instr: ir.Instruction) -> bool:
    """True if any type modifier is a floating-point type."""
    return any(m in FLOAT_TYPES for m in instr.mods)


def is_float_op(instr: ir.Instruction) -> bool:
    """A floating-point operation: an opcode with float variants used with a float type
    (``add.f32``, ``cvt.rn.f32.s32``, ``ld.global.f32``; not ``add.s32``, not ``bar.sync``)."""
    return info(instr.opcode).float_capable and is_float(instr)


def vector_width(instr: ir.Instruction) -> int:
    """``.v2``/``.v4``/``.v8`` → 2/4/8, else 1."""
    for m in instr.mods:
        if m in ("v2", "v4", "v8", "v16"):
            return int(m[1:])
    return 1


def state_space(instr: ir.Instruction) -> str | None:
    """The state-space modifier (``global``, ``shared::cta`` …); None = generic addressing."""
    for m in instr.mods:
        if m in STATE_SPACES:
            return m
    return None


def defs(instr: ir.Instruction) -> list[int]:
    """Indices of the operands the instruction writes (registers; a ``Pipe`` operand writes both
    of its predicates, a ``Vec`` all its elements)."""
    op, n = instr.opcode, len(instr.operands)
    if n == 0:
        return []
    mods = instr.mods
    ops = instr.operands
    if op == "call":
        # call (ret), f, (args) — the return ParamList comes first when present (ISA §9.7.12.3)
        return [0] if isinstance(ops[0], ir.ParamList) and n >= 2 else []
    if op in ("mbarrier", "clusterlaunchcontrol"):
        # the arrive/test/try_wait forms return a state/predicate in operand 0; init/inval/
        # expect_tx/complete_tx and try_cancel take only an address first
        return [] if isinstance(ops[0], (ir.Addr, ir.AddrList)) else [0]
    if op == "wmma":
        return [] if mods and mods[0] == "store" else [0]
    if op == "wgmma":
        return [0] if mods and mods[0] == "mma_async" else []
    if op == "tcgen05":
        return [0] if mods and mods[0] in ("ld", "wait_ld") and not isinstance(ops[0], ir.Addr) else []
    if op == "fence":
        return []
    if op == "bar" and mods and mods[0] == "red":
        return [0]
    if op == "vote" or op == "match" or op == "redux" or op == "elect":
        return [0]
    if op == "atom" and n >= 2 and isinstance(ops[0], ir.Addr):
        return []  # the no-return form written by some tools
    if op in ("tensormap", "cp", "st", "red", "sust", "sured", "stmatrix", "prefetch", "prefetchu",
              "discard", "applypriority", "multimem"):
        if op == "multimem" and mods and mods[0] == "ld_reduce":
            return [0]
        return []
    k = info(op).ndefs
    return list(range(min(k, n)))


def uses(instr: ir.Instruction) -> list[int]:
    """Indices of the operands the instruction reads (the complement of :func:`defs`, plus
    accumulators that are read and written: ``wgmma.mma_async``'s D)."""
    d = set(defs(instr))
    out = [i for i in range(len(instr.operands)) if i not in d]
    if instr.opcode == "wgmma" and instr.mods and instr.mods[0] == "mma_async":
        out.insert(0, 0)
    return out


def memory_operand(instr: ir.Instruction) -> int | None:
    """Index of the first address operand (``[…]``), if any."""
    for i, o in enumerate(instr.operands):
        if isinstance(o, (ir.Addr, ir.AddrList)):
            return i
    return None


def registers(o: ir.Operand) -> list[str]:
    """Register names mentioned in an operand (address bases, vector elements, pipes …)."""
    t = type(o)
    if t is ir.Reg:
        return [o.name]  # type: ignore[union-attr]
    if t is ir.Addr:
        return [o.base.name] if isinstance(o.base, ir.Reg) else []  # type: ignore[union-attr]
    if t in (ir.Vec, ir.ParamList, ir.AddrList):
        return [r for i in o.items for r in registers(i)]  # type: ignore[union-attr]
    if t is ir.Pipe:
        return registers(o.a) + registers(o.b)  # type: ignore[union-attr]
    if t is ir.Not:
        return registers(o.operand)  # type: ignore[union-attr]
    return []
