"""Writing one function's rewrite into the module's edit list: drop the φ⁻¹ tails every read of which
a shadow payload serves, replace each rewritten instruction (under a ``// fpsan: <original>`` comment
when it is alone on its line), insert the ring ops of recognised libdevice bodies, and declare the fresh
registers at the top of the function body."""

from __future__ import annotations

from ptxkit import ir
from ptxkit.fpsan.ctx import KIND_BITS, Unembed
from ptxkit.fpsan.irview import alone_on_line, original
from ptxkit.fpsan.resident import live_out
from ptxkit.fpsan.rewrite import Lines, Rewritten

#: The comment line that precedes a rewritten instruction's expansion and names the original
#: (ptxkit.fpsan.origin maps sanitized lines back to the user's through it).
ORIGINAL_PREFIX = "// fpsan: "


def write_edits(module: ir.Module, fn: ir.Function, done: Rewritten, prefix: str) -> None:
    ctx = done.ctx
    # which φ⁻¹ tails can go. A read served by a shadow of definition X happens in X's straight-line
    # run with no write of the register in between: it uses X's payload, not float bits. Reads that
    # need the bits (native reads, embeds of the register) keep the tail of the definition reaching
    # them — known within a straight-line run, else (None) every definition of the register keeps
    # its tail. Function results and module-level registers (visible elsewhere) always keep.
    unknown = {reg for reg, d in ctx.bit_reads if d is None}
    needed = {(reg, d) for reg, d in ctx.bit_reads if d is not None}
    visible = live_out(module, fn)

    def keep(u: Unembed) -> bool:
        return u.reg in visible or u.reg in unknown or (u.reg, u.def_id) in needed

    def expand(lines: Lines) -> list[str]:
        out: list[str] = []
        for ln in lines:
            if isinstance(ln, Unembed):
                if keep(ln):
                    out.extend(ln.lines)
            else:
                out.append(ln)
        return out

    # one string per line, indented: ptxkit.ptx.emit prints each item of an edit as one line
    for instr, lines in done.replaced:
        head: list[ir.Statement | ir.TopLevel | str] = (
            [f"\t{ORIGINAL_PREFIX}{original(module, instr)}"] if alone_on_line(module, instr) else [])
        module.replace(instr, head + ["\t" + ln for ln in expand(lines)])
    for anchor, lines, after in done.inserted:
        new: list[ir.Statement | ir.TopLevel | str] = ["\t" + ln for ln in expand(lines)]
        if after:  # below the label's line (its trailing comment stays with it)
            module.insert_after(anchor, new)
        else:
            module.insert_before(anchor, new)


def declare_registers(module: ir.Module, fn: ir.Function, counter: dict[str, int], prefix: str) -> None:
    """``.reg`` declarations of the fresh registers, before the function's first statement."""
    if not counter:
        return
    decls = [f".reg .{'pred' if k == 'pred' else k} {prefix}{k}_<{n}>;" for k, n in sorted(counter.items())
             if k in KIND_BITS]
    first = next((s for s in fn.body or [] if s.span is not None), None)
    if first is not None and decls:
        module.insert_before(first, [f"\t{d}" for d in decls])
