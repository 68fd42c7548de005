"""Dat3M PTX litmus importer: ``parse_litmus(text, filename) -> ConcurrentProgram``.

The format is Dat3M's ``LitmusPTX.g4`` (herd habits): a ``PTX name`` header, quoted comments, an init
block ``{ x=0; P0:r0=0; P0:r1=&x; y @ surface aliases x; }``, a thread header ``P0@cta 0,gpu 0 | …;``,
one column per thread with rows ending in ``;``, then ``filter``/``exists``/``~exists``/``forall``
(or herd's ``final F with Q``) and a formula.

Each litmus instruction is lowered to a PTX-spelled :class:`ptxkit.ir.Instruction` (conventions of
``ptxkit.explore.program``):

=============================  =====================================================================
litmus                         lowered (opcode, mods, operands)
=============================  =====================================================================
``ld.sem[.scope] r, x``        ``ld``  (sem[, scope], 'global', 'u32')  (Reg r, Addr(Sym x))
``cold.sem r, x``              ``ld``  (sem[, scope], 'const', 'u32')   — constant proxy (ISA §8.6)
``tld.sem r, x``               ``tld`` (sem[, scope], 'global', 'u32')  — texture proxy
``suld.sem r, x``              ``suld`` (sem[, scope], 'global', 'u32') — surface proxy
``st/sust.sem[.scope] x, v``   ``st``/``sust`` (…)                      (Addr(Sym x), v)
``atom.sem.scope.op r, x, v``  ``atom`` (sem, scope, 'global', op, 'u32'|'b32') (Reg r, Addr, v[, v2])
``red.sem.scope.op x, v``      ``red``  (sem, scope, 'global', op, 'u32')  (Addr, v)
``suatom``/``sured``           same with opcode ``suatom``/``sured`` (surface proxy)
``fence.sem.scope``            ``fence`` (sem, scope)
``fence.proxy.P``              ``fence`` ('proxy', P)   P ∈ generic surface texture constant alias
``bar.cta.sync|arrive a[,b[,c]]`` ``bar`` ('cta', 'sync'|'arrive') (a[, b[, c]]) — Dat3M's operands:
                               the barrier id is every operand but a third (the quorum/count)
``ld r, v`` (no .sem)          ``mov`` ('u32',) (Reg r, v)
``add|sub|mul|div r, a, b``    ``add`` ('s32',) / ``sub`` ('s32',) / ``mul`` ('lo', 's32') / ``div`` ('s32',)
``beq a, b, LCn``              ``setp`` ('eq', 's32') (Reg pK, a, b) + ``@pK bra LCn``
``goto LCn``                   ``bra`` () (Sym LCn)
``LCn:``                       :class:`ptxkit.ir.Label`
=============================  =====================================================================

Memory operands may also be written ``[x]`` or ``[r0]`` (a pointer register initialised ``&x``).
"""

from __future__ import annotations

import os
import re

from ptxkit.explore import condition as cf
from ptxkit.explore.program import ConcurrentProgram, Condition, Location, ThreadProgram
from ptxkit.ir import Addr, Guard, Imm, Instruction, Label, Reg, Span, Sym
from ptxkit.litmus.formula import MAX_FORMULA_DEPTH, parse_formula, parse_formula_tokens
from ptxkit.litmus.lexer import Tok, TokenStream
from ptxkit.ptx.parser import read_source

SEMS = ("weak", "relaxed", "acquire", "release", "acq_rel", "sc")
SCOPES = ("cta", "cluster", "gpu", "sys")
PROXIES = ("generic", "surface", "texture", "constant")
RMW_OPS = ("add", "sub", "mul", "div", "and", "or", "xor", "exch", "cas", "min", "max", "inc", "dec")
BRANCHES = {"beq": "eq", "bne": "ne", "blt": "lt", "bgt": "gt", "ble": "le", "bge": "ge"}
LOCAL_OPS = {"add": ("add", ("s32",)), "sub": ("sub", ("s32",)), "mul": ("mul", ("lo", "s32")),
             "div": ("div", ("s32",)), "and": ("and", ("b32",)), "or": ("or", ("b32",)),
             "xor": ("xor", ("b32",))}
LOADS = {"ld": ("ld", "global"), "cold": ("ld", "const"), "tld": ("tld", "global"),
         "suld": ("suld", "global")}
STORES = {"st": "st", "sust": "sust"}
ATOMS = {"atom": "atom", "suatom": "suatom"}
REDS = {"red": "red", "sured": "sured"}


def _is_reg(name: str) -> bool:
    return re.fullmatch(r"r\d+", name) is not None


class _Parser(TokenStream):
    def __init__(self, text: str, filename: str):
        super().__init__(text, filename)
        self.pred_counter: dict[int, int] = {}

    def parse(self) -> ConcurrentProgram:
        head = self.expect_id("'PTX' header")
        if head.text.upper() != "PTX":
            self.fail(head, f"not a PTX litmus test (header {head.text!r}; expected 'PTX')")
        name_toks = []
        while self.peek().kind != "eof" and self.peek().line == head.line and self.peek().text != "{":
            name_toks.append(self.next())
        name = self.text[name_toks[0].start:name_toks[-1].end] if name_toks else ""
        while self.peek().kind == "str" or (self.peek().kind != "eof" and self.peek().text != "{"):
            # quoted comments (and anything herd allows before the init block)
            self.next()
        locations, init_regs = self.parse_init()
        threads = self.parse_threads(locations, init_regs)
        cond = self.parse_condition(len(threads))
        # every location a thread mentions exists (herd: undeclared locations start at 0)
        for th in threads:
            for st in th.body:
                if isinstance(st, Instruction):
                    for op in st.operands:
                        if isinstance(op, Addr) and isinstance(op.base, Sym) and op.base.name not in locations:
                            locations[op.base.name] = Location(op.base.name, 0)
        return ConcurrentProgram(name=name, threads=threads, locations=locations, condition=cond,
                                 filename=self.filename, source=self.text)

    def parse_init(self) -> tuple[dict[str, Location], dict[int, dict[str, int | str]]]:
        self.expect("{", "'{' opening the init block")
        locations: dict[str, Location] = {}
        init_regs: dict[int, dict[str, int | str]] = {}
        pending_alias: list[tuple[Tok, str, str, str]] = []
        while True:
            t = self.peek()
            if t.text == "}":
                self.next()
                break
            if t.text == ";":
                self.next()
                continue
            if t.kind == "eof":
                self.fail(t, "unterminated init block (missing '}')")
            if t.kind == "id" and re.fullmatch(r"P\d+", t.text) and self.peek(1).text == "@":
                self.fail(t, "unterminated init block (missing '}' before the thread header)")
            # Pn:reg = value | loc = value | loc @ proxy aliases loc | n:reg = value
            thread = self.thread_ref_opt()
            if thread is not None:
                reg = self.expect_id("a register")
                self.expect("=")
                init_regs.setdefault(thread, {})[reg.text] = self.init_value()
                continue
            nm = self.expect_id("a location or 'Pn:reg'")
            if self.accept("@"):
                proxy = self.expect_id("a proxy (generic, surface, texture, constant)")
                if proxy.text not in PROXIES:
                    self.fail(proxy, f"unknown proxy {proxy.text!r} (expected one of {', '.join(PROXIES)})")
                self.expect("aliases")
                target = self.expect_id("the aliased location")
                pending_alias.append((nm, nm.text, proxy.text, target.text))
                continue
            # herd type annotations `int x = 0` / `uint32_t x`: skip a leading type word
            if self.peek().kind == "id" and self.peek(1).text in ("=", ";"):
                nm = self.next()
            if self.accept("=") is None:
                if self.peek().text in (";", "}"):
                    locations[nm.text] = Location(nm.text, 0)
                    continue
                self.fail(self.peek(), f"expected '=' after {nm.text!r}")
            v = self.init_value()
            if isinstance(v, str):
                # loc = &loc: a location holding a pointer — keep as an alias-free symbolic value
                self.fail(nm, "a location initialised with an address is not supported")
            locations[nm.text] = Location(nm.text, v)
        for at, name, space, aliased in pending_alias:
            if aliased not in locations:
                locations[aliased] = Location(aliased, 0)
            root, seen = aliased, {name}
            while root not in seen:
                up = locations[root].alias_of
                if up is None:
                    break
                seen.add(root)
                root = up
            if root in seen:
                self.fail(at, f"alias cycle through {name!r}")
            # alias_of is the *direct* target: `s @ surface aliases y` reaches y's virtual address
            locations[name] = Location(name, locations[root].initial, alias_of=aliased, proxy=space)
        return locations, init_regs

    def init_value(self) -> int | str:
        if self.accept("&"):
            return self.expect_id("a location").text
        t = self.peek()
        if t.kind == "id":
            self.next()
            return t.text  # herd: `P0:r1=x` means the address of x
        return self.expect_int()

    # ------------------------------------------------------------------ threads
    def parse_threads(self, locations: dict[str, Location],
                      init_regs: dict[int, dict[str, int | str]]) -> list[ThreadProgram]:
        threads: list[ThreadProgram] = []
        while True:
            t = self.expect_id("a thread header 'Pn@cta C,gpu G'")
            m = re.fullmatch(r"P(\d+)", t.text)
            if not m:
                self.fail(t, f"expected a thread name 'Pn', found {t.text!r}")
            idx = self.number(t, m.group(1))
            if idx != len(threads):
                self.fail(t, f"thread P{idx} out of order (expected P{len(threads)})")
            cta = gpu = 0
            if self.accept("@"):
                while True:
                    kw = self.expect_id("'cta' or 'gpu'")
                    val = self.expect_int()
                    if kw.text == "cta":
                        cta = val
                    elif kw.text == "gpu":
                        gpu = val
                    else:
                        self.fail(kw, f"unknown placement {kw.text!r} (expected cta or gpu)")
                    if not self.accept(","):
                        break
            threads.append(ThreadProgram(index=idx, body=[], cta=cta, gpu=gpu,
                                         init_regs=dict(init_regs.get(idx, {}))))
            if self.accept(";"):
                break
            self.expect("|", "'|' or ';' after a thread header")
        for n in init_regs:
            if n >= len(threads):
                self.fail(self.peek(), f"init block names P{n}, but the test has {len(threads)} threads")
        cells_by_thread: list[list[list[Tok]]] = [[] for _ in threads]
        while self.peek().kind != "eof" and not self._at_condition():
            row: list[list[Tok]] = [[]]
            row_start = self.peek()
            while True:
                t = self.peek()
                if t.kind == "eof":
                    self.fail(t, "unterminated instruction row (missing ';')")
                if t.text == ";" and t.kind == "op":
                    self.next()
                    break
                if t.text == "|" and t.kind == "op":
                    self.next()
                    row.append([])
                    continue
                row[-1].append(self.next())
            if len(row) > len(threads):
                self.fail(row_start, f"row has {len(row)} columns but the test has {len(threads)} threads")
            for k, cell in enumerate(row):
                if cell:
                    cells_by_thread[k].append(cell)
        for th, cells in zip(threads, cells_by_thread):
            for cell in cells:
                th.body.extend(self.lower(cell, th))
            labels = {s.name for s in th.body if isinstance(s, Label)}
            for s in th.body:
                if isinstance(s, Instruction) and s.opcode == "bra":
                    target = s.operands[0]
                    assert isinstance(target, Sym) and s.span is not None  # built by lower()
                    if target.name not in labels:
                        self._fail_at(s.span.start, s.span.line, s.span.col,
                                      f"branch to undefined label {target.name!r} in P{th.index}")
        return threads

    def _at_condition(self) -> bool:
        t = self.peek()
        if t.kind == "op" and t.text == "~":
            return True
        return t.kind == "id" and t.text in ("exists", "forall", "filter", "final", "locations")

    # ------------------------------------------------------------------ instructions
    def lower(self, cell: list[Tok], th: ThreadProgram) -> list[Instruction | Label]:
        first, last = cell[0], cell[-1]
        sp = self.span(first, last)
        if len(cell) == 2 and cell[1].text == ":" and first.kind == "id":
            return [Label(first.text, span=sp)]
        if first.kind != "id":
            self.fail(first, f"expected an instruction, found {first.text!r}")
        ops = self._split_operands(cell[1:], first)
        parts = first.text.split(".")
        head, mods = parts[0], parts[1:]

        def reg(k: int) -> Reg:
            toks = ops[k]
            if len(toks) != 1 or toks[0].kind != "id" or not _is_reg(toks[0].text):
                self.fail(toks[0] if toks else first, "expected a register (rN)")
            return Reg(toks[0].text)

        def value(k: int) -> Reg | Imm:
            toks = ops[k]
            if len(toks) == 1 and toks[0].kind == "id" and _is_reg(toks[0].text):
                return Reg(toks[0].text)
            if len(toks) == 1 and toks[0].kind == "num":
                return Imm(self.number(toks[0]))
            if len(toks) == 2 and toks[0].text == "-" and toks[1].kind == "num":
                return Imm(self.number(toks[1], negative=True))
            self.fail(toks[0] if toks else first, "expected a register or an integer")

        def loc(k: int) -> Addr:
            toks = ops[k]
            if toks and toks[0].text == "[" and toks[-1].text == "]":
                toks = toks[1:-1]
            if len(toks) == 1 and toks[0].kind == "id":
                if _is_reg(toks[0].text):
                    return Addr(Reg(toks[0].text))
                return Addr(Sym(toks[0].text))
            self.fail(toks[0] if toks else first, "expected a location")

        def nops(*allowed: int) -> None:
            if len(ops) not in allowed:
                want = " or ".join(str(a) for a in allowed)
                self.fail(first, f"{first.text} takes {want} operands, got {len(ops)}")

        def sem_scope(mods: list[str], need_scope: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
            if not mods or mods[0] not in SEMS:
                self.fail(first, f"{first.text}: expected a semantics ({', '.join(SEMS)})")
            sem, rest = mods[0], mods[1:]
            if rest and rest[0] in SCOPES:
                return (sem, rest[0]), tuple(rest[1:])
            if need_scope:
                self.fail(first, f"{first.text}: missing scope (cta, gpu or sys)")
            # a strong ld/st without a scope: the ISA default is .sys (§9.7.9.8); .weak has none
            return ((sem,) if sem == "weak" else (sem, "sys")), tuple(rest)

        def ins(op: str, m: tuple[str, ...], o: tuple[Reg | Imm | Addr | Sym, ...],
                guard: Guard | None = None) -> Instruction:
            return Instruction(op, m, o, guard=guard, span=sp)

        if head in LOADS and not mods:  # local value: `ld r0, 1`
            nops(2)
            return [ins("mov", ("u32",), (reg(0), value(1)))]
        if head in LOADS:
            op, space = LOADS[head]
            if "const" in mods or "global" in mods:  # `ld.const r, x` is cold (constant proxy)
                space = "const" if "const" in mods else space
                mods = [m for m in mods if m not in ("const", "global")] or ["weak"]
            (ss, rest) = sem_scope(mods, False)
            if rest:
                self.fail(first, f"unexpected modifier .{rest[0]} on {head}")
            nops(2)
            return [ins(op, (*ss, space, "u32"), (reg(0), loc(1)))]
        if head in STORES:
            (ss, rest) = sem_scope(mods, False)
            if rest:
                self.fail(first, f"unexpected modifier .{rest[0]} on {head}")
            nops(2)
            return [ins(STORES[head], (*ss, "global", "u32"), (loc(0), value(1)))]
        if head in ATOMS or head in REDS:
            (ss, rest) = sem_scope(mods, True)
            if len(rest) != 1 or rest[0] not in RMW_OPS:
                self.fail(first, f"{first.text}: expected one operation ({', '.join(RMW_OPS)})")
            rop = rest[0]
            ty = "b32" if rop in ("cas", "exch", "and", "or", "xor") else "u32"
            if head in REDS:
                nops(2)
                return [ins(REDS[head], (*ss, "global", rop, ty), (loc(0), value(1)))]
            if rop == "cas":
                nops(4)
                return [ins(ATOMS[head], (*ss, "global", rop, ty), (reg(0), loc(1), value(2), value(3)))]
            nops(3)
            return [ins(ATOMS[head], (*ss, "global", rop, ty), (reg(0), loc(1), value(2)))]
        if head == "fence":
            nops(0)
            if len(mods) == 2 and mods[0] == "proxy":
                if mods[1] not in (*PROXIES, "alias"):
                    self.fail(first, f"unknown proxy fence .{mods[1]}")
                return [ins("fence", ("proxy", mods[1]), ())]
            if len(mods) == 2 and mods[0] in SEMS and mods[1] in SCOPES:
                return [ins("fence", tuple(mods), ())]
            if len(mods) == 1 and mods[0] in SEMS:
                return [ins("fence", (mods[0], "sys"), ())]
            self.fail(first, f"malformed fence {first.text!r} (expected fence.SEM.SCOPE or fence.proxy.P)")
        if head in ("bar", "barrier"):
            kind = [x for x in mods if x != "cta"]
            if len(kind) != 1 or kind[0] not in ("sync", "arrive", "red"):
                self.fail(first, f"malformed barrier {first.text!r} (expected bar.cta.sync|arrive)")
            nops(1, 2, 3)
            return [ins("bar", ("cta", kind[0]), tuple(value(k) for k in range(len(ops))))]
        if head in LOCAL_OPS and not mods:
            nops(3)
            op, local_mods = LOCAL_OPS[head]
            return [ins(op, local_mods, (reg(0), value(1), value(2)))]
        if head == "mov" and not mods:
            nops(2)
            return [ins("mov", ("u32",), (reg(0), value(1)))]
        if head in BRANCHES and not mods:
            nops(3)
            tgt = ops[2]
            if len(tgt) != 1 or tgt[0].kind != "id":
                self.fail(tgt[0] if tgt else first, "expected a label")
            k = self.pred_counter.get(th.index, 0)
            self.pred_counter[th.index] = k + 1
            p = f"p{k}"
            return [ins("setp", (BRANCHES[head], "s32"), (Reg(p), value(0), value(1))),
                    ins("bra", (), (Sym(tgt[0].text),), guard=Guard(p))]
        if head == "goto" and not mods:
            nops(1)
            if len(ops[0]) != 1 or ops[0][0].kind != "id":
                self.fail(first, "expected a label")
            return [ins("bra", ("uni",), (Sym(ops[0][0].text),))]
        self.fail(first, f"unknown litmus instruction {first.text!r}")
        return []

    def _split_operands(self, toks: list[Tok], head: Tok) -> list[list[Tok]]:
        if not toks:
            return []
        out: list[list[Tok]] = [[]]
        for t in toks:
            if t.kind == "op" and t.text == ",":
                if not out[-1]:
                    self.fail(t, "empty operand")
                out.append([])
            else:
                out[-1].append(t)
        if not out[-1]:
            self.fail(toks[-1], "empty operand")
        return out

    # ------------------------------------------------------------------ condition
    def parse_condition(self, nthreads: int) -> Condition | None:
        self.nthreads = nthreads
        filt = None
        quant = None
        first = self.peek()
        while self.peek().kind != "eof":
            t = self.peek()
            if t.text == "locations":
                self.next()
                self.expect("[")
                while not self.accept("]"):
                    if self.peek().kind == "eof":
                        self.fail(self.peek(), "unterminated locations list")
                    self.next()
                continue
            if t.text == "filter":
                self.next()
                filt = self.formula()
                continue
            if t.text == "~":
                self.next()
                self.expect("exists", "'exists' after '~'")
                quant, first = "not exists", t
                formula = self.formula()
                break
            if t.text in ("exists", "forall"):
                self.next()
                quant, first = t.text, t
                formula = self.formula()
                break
            if t.text == "final":
                self.next()
                formula = self.formula()
                self.expect("with")
                # herd: `final F with forall|exists|~exists [: ...]`
                if self.accept("~"):
                    self.expect("exists")
                    quant = "not exists"
                else:
                    q = self.expect_id("a quantifier")
                    if q.text not in ("exists", "forall"):
                        self.fail(q, f"unknown quantifier {q.text!r}")
                    quant = q.text
                while self.peek().kind != "eof" and self.peek().text != ";":
                    self.next()
                self.accept(";")
                break
            self.fail(t, f"expected 'exists', '~exists', 'forall' or 'filter', found {t.text!r}")
        if quant is None:
            if filt is not None:
                self.fail(self.peek(), "a filter without a condition")
            return None
        self.accept(";")
        if self.peek().kind != "eof":
            self.fail(self.peek(), f"unexpected {self.peek().text!r} after the condition")
        return Condition(quant, formula, filt, span=Span(first.start, self.peek().start, first.line, first.col))

    def formula(self) -> cf.Formula:
        return parse_formula_tokens(self)


def parse_litmus(text: str, filename: str = "<input>") -> ConcurrentProgram:
    """Parse a Dat3M PTX litmus test (see the module docstring for the lowering)."""
    return _Parser(text, filename).parse()


def parse_litmus_file(path: str | os.PathLike[str]) -> ConcurrentProgram:
    """Read (with the input size limit of ``ptxkit.ptx.parser.read_source``) and parse a test."""
    return parse_litmus(read_source(path), os.fspath(path))


# the condition parser lives in ptxkit.litmus.formula; its entry point is also this module's
__all__ = ["MAX_FORMULA_DEPTH", "parse_formula", "parse_formula_tokens", "parse_litmus", "parse_litmus_file"]
