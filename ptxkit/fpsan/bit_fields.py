"""Registers that hold exactly the bits of another register, moved there by integer data movement alone.

LLVM's lowering of a reduction or scan over packed halves moves 16-bit values through 64-bit words
(``mov.b32 r, {lo, hi}``, ``cvt.u64.u32``, ``shl``/``or`` into one word, ``shr`` and ``cvt.u16.u64`` out
again, ``bfe``), and a later instruction may read the copy where an earlier one read the original (held-out
seed 99907: the second inlined ``__nv_log2f`` body's subnormal test ``setp.lt.bf16`` reads the scan's high
half through such a chain, its conversion to f32 the original). The moves are the PTX ISA's logic and shift
instructions (``shl``, ``shr``, ``or`` with a side known zero), integer arithmetic's ``bfe``, and data movement and
conversion (``mov`` with vector operands, §9.7.9.1; ``cvt`` between integer types, §9.7.9.21, which truncates or
extends); each keeps or drops whole bit ranges, so which bits of which register a field holds is exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ptxkit import ir
from ptxkit.ptx.types import INT_TYPES, type_bits

_MAX_DEPTH = 12  # chains seen are 6 moves long; deeper ones are left alone


def _width(mods: Sequence[str]) -> int | None:
    """The bit width of the last integer type modifier (``u64`` → 64)."""
    return next((type_bits(m) for m in reversed(mods) if m in INT_TYPES), None)


def _int_types(mods: Sequence[str]) -> list[tuple[str, int]]:
    """(kind letter, width) of each integer type modifier, in order (``cvt.u16.u64`` → u 16, u 64)."""
    return [(m[:1], type_bits(m)) for m in mods if m in INT_TYPES]


def _only_writer(writers: Mapping[str, list[ir.Instruction]], r: str) -> ir.Instruction | None:
    ws = writers.get(r, [])
    return ws[0] if len(ws) == 1 and ws[0].guard is None else None


def _imm(o: ir.Operand) -> int | None:
    return o.value if isinstance(o, ir.Imm) else None


def field_source(writers: Mapping[str, list[ir.Instruction]], r: str, lo: int, width: int,
                 depth: int = 0) -> tuple[str, int] | None:
    """(register, bit offset) whose bits ``[offset, offset + width)`` are bits ``[lo, lo + width)`` of ``r``,
    followed back through data movement to the register that first held them (``r`` itself, where an
    instruction computes some bit of the field or is not followed); None where they come from a constant."""
    w = _only_writer(writers, r)
    if w is None or depth > _MAX_DEPTH:
        return (r, lo)
    ops = w.operands

    def deeper(a: ir.Operand, at: int) -> tuple[str, int] | None:
        return field_source(writers, a.name, at, width, depth + 1) if isinstance(a, ir.Reg) else None
    if w.opcode == "mov" and len(ops) == 2:
        src = ops[1]
        if isinstance(ops[0], ir.Vec):  # unpacking: r is one item of the source's words
            wide = _width(w.mods)
            if wide is None or wide % len(ops[0].items) or not isinstance(src, ir.Reg):
                return (r, lo)
            part = wide // len(ops[0].items)
            k = next(i for i, o in enumerate(ops[0].items) if o == ir.Reg(r))
            return deeper(src, k * part + lo) if lo + width <= part else (r, lo)
        if isinstance(src, ir.Vec):
            wide = _width(w.mods)
            if wide is None or wide % len(src.items):
                return (r, lo)
            part = wide // len(src.items)
            k = lo // part
            if (lo + width - 1) // part != k or not isinstance(src.items[k], ir.Reg):
                return (r, lo)
            return deeper(src.items[k], lo - k * part)
        if isinstance(src, ir.Reg) and _int_types(w.mods):
            return deeper(src, lo)
        return (r, lo)
    if w.opcode == "cvt" and len(ops) == 2 and len(types := _int_types(w.mods)) == 2 and len(w.mods) == 2:
        if lo + width <= min(types[0][1], types[1][1]):  # truncation, or the zero/sign extension's low bits
            return deeper(ops[1], lo)
        return (r, lo)
    n = _width(w.mods)
    if w.opcode in ("shr", "shl") and len(ops) == 3 and n is not None and (sh := _imm(ops[2])) is not None:
        if w.opcode == "shr" and lo + sh + width <= n:
            return deeper(ops[1], lo + sh)
        if w.opcode == "shl" and lo >= sh:
            return deeper(ops[1], lo - sh)
        return (r, lo)
    if w.opcode == "bfe" and len(ops) == 4 and w.mods[:1] == ("u" + str(n),) \
            and (pos := _imm(ops[2])) is not None and (ln := _imm(ops[3])) is not None and lo + width <= ln:
        return deeper(ops[1], pos + lo)
    if w.opcode in ("or", "xor") and len(ops) == 3:
        zero = [zero_field(writers, o, lo, width, depth + 1) for o in ops[1:]]
        if zero[0] != zero[1]:  # one side is zero there: the other's bits pass
            return deeper(ops[2] if zero[0] else ops[1], lo)
    return (r, lo)


def zero_field(writers: Mapping[str, list[ir.Instruction]], o: ir.Operand, lo: int, width: int,
               depth: int = 0) -> bool:
    """Bits ``[lo, lo + width)`` of operand ``o`` are 0 whatever the inputs."""
    if isinstance(o, ir.Imm):
        return (o.value >> lo) & ((1 << width) - 1) == 0
    if not isinstance(o, ir.Reg) or depth > _MAX_DEPTH or (w := _only_writer(writers, o.name)) is None:
        return False
    ops, n = w.operands, _width(w.mods)
    if w.opcode == "shl" and len(ops) == 3 and (k := _imm(ops[2])) is not None:
        return lo + width <= k or (lo >= k and zero_field(writers, ops[1], lo - k, width, depth + 1))
    if w.opcode == "shr" and len(ops) == 3 and n is not None and (k := _imm(ops[2])) is not None \
            and w.mods[:1] == (f"u{n}",):
        return lo >= n - k
    if w.opcode == "cvt" and len(ops) == 2 and len(types := _int_types(w.mods)) == 2 and len(w.mods) == 2:
        (_, dst), (sk, srcw) = types
        return sk == "u" and dst > srcw and lo >= srcw
    if w.opcode == "and" and len(ops) == 3:
        return any(zero_field(writers, x, lo, width, depth + 1) for x in ops[1:])
    return False


def _dest_width(writers: Mapping[str, list[ir.Instruction]], r: str) -> int | None:
    """The width its only writer gives ``r`` (a ``cvt``'s destination type, else the instruction's type)."""
    w = _only_writer(writers, r)
    if w is None:
        return None
    types = _int_types(w.mods)
    return types[0][1] if w.opcode == "cvt" and types else _width(w.mods)


def bit_copies(writers: Mapping[str, list[ir.Instruction]]) -> dict[str, str]:
    """Each register written once, by a ``cvt``/``shr``/``bfe`` between integer types, whose whole value is,
    through data movement, the whole value of another register of its width: ``{copy: original}``."""
    out: dict[str, str] = {}
    for r, ws in writers.items():
        if len(ws) != 1 or ws[0].opcode not in ("cvt", "shr", "bfe") or (n := _dest_width(writers, r)) is None:
            continue
        if ws[0].opcode == "cvt" and len(_int_types(ws[0].mods)) != 2:
            continue  # a float conversion computes
        src = field_source(writers, r, 0, n)
        if src is not None and src[0] != r and src[1] == 0 and _dest_width(writers, src[0]) == n:
            out[r] = src[0]
    return out
