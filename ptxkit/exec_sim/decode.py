"""Decode a kernel once into a flat program of pre-bound operations (PTX ISA §10–11).

The entry and every ``.func`` it calls are flattened (nested blocks included) into one code array;
labels become indices; each register (block-scoped, ISA §5.1.2) gets a slot in the register file; each
instruction is bound to a closure from :mod:`ptxkit.exec_sim.semantics` so the scheduler's hot loop
does no string work. Memory symbols get static addresses: module ``.global`` variables in global
memory, ``.shared`` (static, then ``extern`` dynamic arrays) at offsets of the per-CTA window,
``.local`` and ``.param`` at offsets of per-thread windows.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ptxkit import ir
from ptxkit.errors import Diagnostic, NotImplementedInstruction, PtxkitError
from ptxkit.exec_sim import semantics
from ptxkit.exec_sim.printf import vprintf
from ptxkit.exec_sim.program import (
    BAR,
    BRA,
    CALL,
    EXIT,
    NORMAL,
    RET,
    SPECIAL,
    WAIT,
    Barrier,
    CallInfo,
    Guard,
    LaneOp,
    Mask,
    Op,
    Program,
    Reader,
    Scope,
    State,
    SymInfo,
    Value,
    Writer,
    align,
    encode_init,
    scheduler_op,
)
from ptxkit.exec_sim.values import (
    UINT_BITS,
    const_of,
    convert_raw,
    decl_size,
    elem_size,
    float_const,
    np_type,
    raw_type,
    storage_bits,
)
from ptxkit.ptx.types import type_bits, type_bytes


class Decoder:
    """Builds a :class:`Program`; also the context the semantics builders use."""

    def __init__(self, module: ir.Module, entry: ir.Function):
        self.module = module
        self.prog = Program(module, entry)
        self.scope = Scope(None)
        self.func_name = entry.name
        self.instr: ir.Instruction | None = None
        self.func_entry: dict[str, int] = {}
        self.pending_funcs: list[ir.Function] = []
        # a .func's formal (return, input) parameters, filled when it is walked
        self.func_params: dict[str, tuple[list[SymInfo], list[SymInfo]]] = {}
        self._module_symbols()

    # ------------------------------------------------------------------ diagnostics
    def error(self, msg: str, instr: ir.Instruction | None = None,
              cls: type[PtxkitError] = PtxkitError) -> PtxkitError:
        instr = instr or self.instr
        sp = instr.span if instr is not None else None
        line, col = (sp.line, sp.col) if sp else (0, 0)
        return cls(Diagnostic(self.module.filename, line, col, msg,
                              self.module.line_text(line) if sp else None))

    def unsupported(self, what: str | None = None) -> LaneOp:
        """An op that fails loudly when (and only when) it executes."""
        ins = self.instr
        msg = f"the simulator does not implement {what or (self.spelling(ins) if ins else 'this')}"
        err = self.error(msg, ins, NotImplementedInstruction)

        def op(st: State, m: Mask) -> None:
            raise err
        return op

    @staticmethod
    def spelling(ins: ir.Instruction) -> str:
        return "'" + ".".join((ins.opcode, *ins.mods)) + "'"

    # ------------------------------------------------------------------ module-level symbols
    def _module_symbols(self) -> None:
        p = self.prog
        shared = 0
        const = bytearray()
        dyn: list[ir.VarDecl] = []
        for item in self.module.items:
            if not isinstance(item, ir.VarDecl):
                continue
            size = decl_size(item)
            al = item.align or elem_size(item.type)
            if item.space == "shared":
                if (item.dims and item.dims[-1] is None) or ("extern" in item.linkage and size == 0):
                    dyn.append(item)
                    p.module_syms[item.name] = SymInfo("shared", 0, 0, item)  # placed in _finish_shared
                    continue
                shared = align(shared, al)
                p.module_syms[item.name] = SymInfo("shared", shared, size, item)
                shared += size
            elif item.space == "const":
                off = align(len(const), al)
                const += bytes(off - len(const))
                p.module_syms[item.name] = SymInfo("const", off, size, item)
                const += encode_init(item, p.module_syms)
            elif item.space == "global":
                info = SymInfo("global", 0, size, item)
                p.module_syms[item.name] = info
                p.globals_init.append((info, b""))
        for f in self.module.functions():
            p.module_syms.setdefault(f.name, SymInfo("func", 0, 0))
        self._shared_cursor = shared
        self._dyn_shared = dyn
        p.const_image = bytes(const)

    def _finish_shared(self) -> None:
        p = self.prog
        p.shared_static = self._shared_cursor
        base = align(self._shared_cursor, 16)
        for d in self._dyn_shared:
            base = align(base, max(d.align or 16, 16))
            p.module_syms[d.name].addr = base
            p.dynamic_shared_syms.append(d.name)
        p.shared_static = base if self._dyn_shared else self._shared_cursor

    # ------------------------------------------------------------------ registers
    def new_reg(self, name: str, typ: str, vector: int | None = None) -> None:
        p = self.prog
        if vector:
            # a vector register is its components %v.x %v.y %v.z %v.w (ISA §5.4.2); used whole it
            # stands for the brace list of them (expanded by _expand_vectors)
            if vector > 4:
                raise self.error(f"vector registers of {vector} elements are not supported")
            comps = [f"{name}.{c}" for c in "xyzw"[:vector]]
            for c in comps:
                self.new_reg(c, typ)
            for c, alias in zip(comps, "rgba"):
                self.scope.regs[f"{name}.{alias}"] = self.scope.regs[c]
            self.scope.vectors[name] = comps
            return
        self.scope.regs[name] = len(p.reg_dtypes)
        p.reg_dtypes.append(raw_type(typ))
        p.reg_names.append(name)

    def reg_index(self, op: ir.Operand) -> int | None:
        name = op.name if isinstance(op, (ir.Reg, ir.Sym)) else None
        if name is None:
            return None
        return self.scope.reg(name)

    # ------------------------------------------------------------------ symbols
    def symbol(self, name: str) -> SymInfo | None:
        s = self.scope.sym(name)
        return s if s is not None else self.prog.module_syms.get(name)

    def _declare_local_var(self, d: ir.VarDecl) -> None:
        p = self.prog
        size = decl_size(d)
        al = max(d.align or elem_size(d.type), 1)
        if d.space == "local":
            off = align(p.local_size, al)
            p.local_size = off + size
            self.scope.syms[d.name] = SymInfo("local", off, size, d)
        elif d.space == "param":
            off = align(p.param_size, max(al, 8))
            p.param_size = off + size
            self.scope.syms[d.name] = SymInfo("param", off, size, d)
        elif d.space == "shared":
            if d.dims and d.dims[-1] is None:
                self._dyn_shared.append(d)
                self.prog.module_syms[d.name] = SymInfo("shared", 0, 0, d)  # fixed in _finish_shared
                return
            off = align(self._shared_cursor, al)
            self._shared_cursor = off + size
            self.prog.module_syms[d.name] = SymInfo("shared", off, size, d)
        elif d.space == "global":  # function-scope .global: static storage like a module variable
            info = SymInfo("global", 0, size, d)
            self.prog.module_syms[d.name] = info
            self.prog.globals_init.append((info, b""))
        elif d.space == "const":
            img = bytearray(self.prog.const_image)
            off = align(len(img), al)
            img += bytes(off - len(img)) + encode_init(d, self.prog.module_syms)
            self.prog.const_image = bytes(img)
            self.prog.module_syms[d.name] = SymInfo("const", off, size, d)
        else:
            raise self.error(f".{d.space} variables inside a function are not supported", None)

    def _params(self, params: list[ir.VarDecl]) -> list[SymInfo]:
        out = []
        for d in params:
            if d.space == "reg":  # register-passed parameters of a .func (ISA §11.1.2): by value
                self.new_reg(d.name, d.type, d.vector)
                # a vector parameter is its components, in order (the actuals are flattened alike)
                for name in self.scope.vectors.get(d.name, [d.name]):
                    out.append(SymInfo("reg", self.scope.regs[name], elem_size(d.type), d))
                continue
            self._declare_local_var(ir.VarDecl("param", d.type, d.name, d.align, d.vector, d.dims))
            out.append(self.scope.syms[d.name])
        return out

    # ------------------------------------------------------------------ operand access (for semantics)
    def src(self, op: ir.Operand, typ: str) -> Reader:
        """A closure ``f(st)`` giving the operand's value viewed as ``typ`` (array or numpy scalar)."""
        want_dt = np_type(typ)
        if isinstance(op, ir.Not):
            inner = self.src(op.operand, "pred")
            return lambda st: ~inner(st)
        if isinstance(op, ir.ParamList) and len(op.items) == 1:  # a parenthesised constant
            return self.src(op.items[0], typ)
        if isinstance(op, (ir.Sym, ir.Reg)) and op.name == "WARP_SZ" and self.reg_index(op) is None:
            op = ir.Imm(32)  # the predefined constant (ISA §10.1)
        if isinstance(op, ir.Imm):
            c = const_of(op.value, typ)
            return lambda st: c
        if isinstance(op, ir.FloatImm):
            c = float_const(op.bits, op.width, typ)
            return lambda st: c
        idx = self.reg_index(op)
        if idx is not None:
            rdt = self.prog.reg_dtypes[idx]
            if typ == "pred":
                if rdt != np.bool_:
                    return lambda st: st.R[idx] != 0
                return lambda st: st.R[idx]
            if rdt == np.bool_:
                return lambda st: st.R[idx].astype(want_dt)
            rb, tb = storage_bits(rdt), max(type_bits(typ), 8)
            if rb == tb:
                if want_dt == rdt:
                    return lambda st: st.R[idx]
                return lambda st: st.R[idx].view(want_dt)
            # a wider register is truncated to the instruction type; a narrower one zero-extended
            # (ISA §6.4.3 operand size rules)
            return lambda st: convert_raw(st.R[idx], rb, tb, False).view(want_dt)
        if (isinstance(op, ir.Reg) and op.name.split(".")[0] in SPECIAL) or (
                isinstance(op, ir.Reg) and op.name.startswith("%envreg")):
            name = op.name
            if typ in ("u64", "s64", "b64"):
                return lambda st: st.sreg(name).astype(np.uint64).view(want_dt)
            if typ == "pred":
                return lambda st: st.sreg(name) != 0
            return lambda st: convert_raw(st.sreg(name), 32 if name not in ("%clock64", "%globaltimer") else 64,
                                          max(type_bits(typ), 8), False).view(want_dt)
        if isinstance(op, (ir.Sym, ir.Reg)):
            info = self.symbol(op.name)
            if info is not None:
                return self._sym_addr(op.name, info, typ)
            raise self.error(f"unknown register or symbol '{op.name}'")
        if isinstance(op, ir.Expr):
            raise self.error(f"constant expression '{op.text}' is not supported by the simulator")
        raise self.error(f"unexpected operand {op!r}")

    def _sym_addr(self, name: str, info: SymInfo, typ: str) -> Reader:
        dt = np_type(typ)
        if info.space == "global":
            # global variables get their device address at launch (st.sym_addr)
            return lambda st: dt(st.global_sym[name]) if dt != np.bool_ else True
        bits = max(type_bits(typ), 8)
        c = UINT_BITS[bits](info.addr & ((1 << bits) - 1)).view(dt) if info.space != "func" else dt(0)
        if info.space == "shared" and name in self._dyn_names():
            return lambda st: UINT_BITS[bits](st.dyn_shared_base[name]).view(dt)
        return lambda st: c

    def _dyn_names(self) -> set[str]:
        return {d.name for d in self._dyn_shared}

    def dst(self, op: ir.Operand, typ: str) -> Writer:
        """A closure ``w(st, value, mask)`` storing a value of ``typ`` (extended by its signedness)."""
        if isinstance(op, ir.Sink):
            return lambda st, v, m: None
        idx = self.reg_index(op)
        if idx is None:
            raise self.error(f"destination '{getattr(op, 'name', op)}' is not a declared register")
        rdt = self.prog.reg_dtypes[idx]
        if typ == "pred" or rdt == np.bool_:
            def conv(v: Value) -> Value:
                return v if (typ == "pred") == (rdt == np.bool_) else (
                    (v != 0) if rdt == np.bool_ else v.astype(rdt))
        else:
            tb = max(type_bits(typ), 8)
            rb = storage_bits(rdt)
            ut = UINT_BITS[tb]
            signed = typ[0] == "s"
            src_dt = np_type(typ)
            if rb == tb:
                if src_dt == rdt:
                    def conv(v: Value) -> Value:
                        return v
                else:
                    def conv(v: Value) -> Value:
                        return v.view(rdt)
            else:
                def conv(v: Value) -> Value:
                    return convert_raw(v.view(ut) if v.dtype != ut else v, tb, rb, signed)

        ndarray = np.ndarray

        def w(st: State, v: Value, m: Mask) -> None:
            r = conv(v)
            if m is None:
                if type(r) is not ndarray or r.ndim == 0:
                    r = np.full(st.n, r, dtype=rdt)
                elif r.dtype is not rdt_d and r.dtype != rdt_d:
                    r = r.astype(rdt)
                st.R[idx] = r
            else:
                st.R[idx] = np.where(m, r, st.R[idx]).astype(rdt, copy=False)
        rdt_d = np.dtype(rdt)
        return w

    def reg_dtype(self, op: ir.Operand) -> type[np.generic] | None:
        idx = self.reg_index(op)
        return None if idx is None else self.prog.reg_dtypes[idx]

    def addr(self, op: ir.Operand) -> tuple[Reader, str | None]:
        """``[base+off]`` → (closure giving uint64 addresses, the symbol's space or None)."""
        if not isinstance(op, ir.Addr):
            raise self.error("expected a memory operand [address]")
        off = np.uint64(op.offset & (2 ** 64 - 1))
        if op.base is None:
            return (lambda st: off), None
        idx = self.reg_index(op.base)
        if idx is not None:
            rdt = self.prog.reg_dtypes[idx]
            if rdt == np.uint64:
                if op.offset == 0:
                    return (lambda st: st.R[idx]), None
                return (lambda st: st.R[idx] + off), None
            # a 32-bit address register: the sum wraps at 32 bits (shared/local offsets are 32-bit)
            ut = rdt
            off32 = ut(op.offset & ((1 << (8 * np.dtype(ut).itemsize)) - 1))
            return (lambda st: (st.R[idx] + off32).astype(np.uint64)), None
        info = self.symbol(op.base.name)
        if info is None:
            raise self.error(f"unknown symbol '{op.base.name}' in address")
        f = self._sym_addr(op.base.name, info, "u64")
        return (lambda st: np.uint64(f(st)) + off), info.space


# ---------------------------------------------------------------------- the walk
def decode(module: ir.Module, entry: ir.Function) -> Program:
    """Flatten ``entry`` and the ``.func``s it calls into a :class:`Program`."""
    dec = Decoder(module, entry)
    p = dec.prog
    root = Scope(None)
    dec.scope = root
    kparams = dec._params(entry.params)
    p.kernel_params = [(d, s.addr) for d, s in zip(entry.params, kparams)]
    dec.func_entry[entry.name] = 0
    _walk_function(dec, entry)
    done = {entry.name}
    while dec.pending_funcs:
        f = dec.pending_funcs.pop()
        if f.name in done:
            continue
        done.add(f.name)
        dec.func_entry[f.name] = len(p.code)
        _walk_function(dec, f)
    # resolve call targets now that every callee has an address
    for op in p.code:
        if op.call is not None and op.call.builtin is None:
            op.call.entry = dec.func_entry[op.call.callee]
    dec._finish_shared()
    return p


def _walk_function(dec: Decoder, fn: ir.Function) -> None:
    p = dec.prog
    dec.func_name = fn.name
    outer = dec.scope
    if fn is not dec.prog.entry:
        params = Scope(None)  # a .func sees its own parameters, not the caller's registers
        dec.scope = params
        rets = dec._params(fn.ret_params)
        dec.func_params[fn.name] = (rets, dec._params(fn.params))
        dec.scope = Scope(params)
    labels: dict[str, int] = {}
    start = len(p.code)
    _walk_block(dec, fn.body or [], labels)
    # falling off the end of a function body returns (ISA §10.1)
    p.code.append(Op(RET if fn is not dec.prog.entry else EXIT, scheduler_op, None, fn.name))
    for op in p.code[start:]:
        if op.kind == BRA and op.label is not None:
            if op.label not in labels:
                raise dec.error(f"unknown label '{op.label}'", op.instr)
            op.target = labels[op.label]
    dec.scope = outer


def _declare_block(dec: Decoder, body: list[ir.Statement]) -> None:
    """A block's registers and variables, declared before its statements: visible in all of it."""
    for s in body:
        if isinstance(s, ir.RegDecl):
            for name in s.expand():
                dec.new_reg(name, s.type, s.vector)
        elif isinstance(s, ir.VarDecl):
            dec._declare_local_var(s)


def _walk_block(dec: Decoder, body: list[ir.Statement], labels: dict[str, int]) -> None:
    """Compile ``body`` and its nested blocks (each a scope, ISA §10.1) in order — with an explicit stack,
    so any nesting depth the front end accepts decodes."""
    p = dec.prog
    _declare_block(dec, body)
    stack: list[tuple[Iterator[ir.Statement], Scope]] = [(iter(body), dec.scope)]
    while stack:
        it, outer = stack[-1]
        s = next(it, None)
        if s is None:  # the block ends: back to the scope around it
            stack.pop()
            dec.scope = outer
        elif isinstance(s, ir.Block):
            stack.append((iter(s.body), dec.scope))
            dec.scope = Scope(dec.scope)
            _declare_block(dec, s.body)
        elif isinstance(s, ir.Label):
            labels[s.name] = len(p.code)
        elif isinstance(s, ir.Instruction):
            dec.instr = s
            op = _compile(dec, s)
            p.code.append(op)
            if op.call is not None and op.call.builtin is None:
                # the return address: copies the callee's results back (ISA §9.7.12.3)
                p.code.append(Op(NORMAL, op.call.copy_out, s, dec.func_name))


def _expand_vectors(dec: Decoder, ins: ir.Instruction) -> ir.Instruction:
    """Replace whole vector registers by the brace list of their components."""
    def fix(op: ir.Operand) -> ir.Operand:
        if isinstance(op, (ir.Reg, ir.Sym)):
            comps = dec.scope.vector(op.name)
            if comps:
                return ir.Vec(tuple(ir.Reg(c) for c in comps))
        return op
    ops = tuple(fix(o) for o in ins.operands)
    if ops == ins.operands:
        return ins
    return ir.Instruction(ins.opcode, ins.mods, ops, ins.guard, ins.span)


def _compile(dec: Decoder, ins: ir.Instruction) -> Op:
    ins = _expand_vectors(dec, ins)
    dec.instr = ins
    guard = None
    if ins.guard is not None:
        gi = dec.scope.reg(ins.guard.pred)
        if gi is None:
            raise dec.error(f"unknown guard predicate '{ins.guard.pred}'", ins)
        guard = (gi, ins.guard.negated)
    fname = dec.func_name
    opc = ins.opcode
    if opc == "bra" or opc == "brx":
        if opc == "brx" or not ins.operands or not isinstance(ins.operands[0], (ir.Sym, ir.Reg)):
            return Op(NORMAL, dec.unsupported(), ins, fname, guard)
        return Op(BRA, scheduler_op, ins, fname, guard, label=ins.operands[0].name)
    if opc == "exit":
        return Op(EXIT, scheduler_op, ins, fname, guard)
    if opc == "ret":
        return Op(RET if fname != dec.prog.entry.name else EXIT, scheduler_op, ins, fname, guard)
    if opc in ("bar", "barrier") and not any(m in ("warp", "cluster") for m in ins.mods):
        return _barrier(dec, ins, fname, guard)
    if opc == "call":
        return _call(dec, ins, fname, guard)
    fn = semantics.build(ins, dec)
    if (opc == "mbarrier" and "try_wait" in ins.mods) or (opc == "barrier" and "cluster" in ins.mods
                                                          and "wait" in ins.mods):
        return Op(WAIT, fn, ins, fname, guard)  # potentially blocking: the scheduler suspends the thread
    if "sync" in ins.mods and "aligned" in ins.mods and getattr(fn, "membermask", None) is None:
        fn = _whole_warp(fn)
    return Op(NORMAL, fn, ins, fname, guard)


def _whole_warp(fn: LaneOp) -> LaneOp:
    """``.sync.aligned`` warp-wide ops (mma, ldmatrix, stmatrix, movmatrix, wmma, wgmma …; ISA §9.7.14,
    §9.7.15): every thread of the warp executes the same instruction, converged — the scheduler runs it
    when the whole (non-exited) warp is there, as a ``.sync`` collective with a full membermask
    (``machine._next_group``)."""
    def op(st: State, m: Mask) -> None:
        fn(st, m)
    setattr(op, "membermask", _FULL_MASK)  # noqa: B010
    return op


def _FULL_MASK(st: State) -> np.uint32:
    return np.uint32(0xFFFFFFFF)


def _barrier(dec: Decoder, ins: ir.Instruction, fname: str, guard: Guard) -> Op:
    """``bar{.cta}.sync|arrive|red`` / ``barrier{.cta}.sync|arrive`` (ISA §9.7.13.1)."""
    mods = set(ins.mods)
    ops = list(ins.operands)
    red = None
    if "red" in mods:
        # bar.red.popc.u32 d, a{, b}, {!}c  /  bar.red.{and,or}.pred p, a{, b}, {!}c
        kind = next((x for x in ("popc", "and", "or") if x in mods), None)
        if kind is None or len(ops) not in (3, 4):
            return Op(NORMAL, dec.unsupported(), ins, fname, guard)
        dst = ops.pop(0)
        pred = dec.src(ops.pop(), "pred")
        red = (kind, pred, dec.dst(dst, "u32" if kind == "popc" else "pred"))
    wait = "arrive" not in mods
    if not ops:
        raise dec.error("bar needs a barrier number")
    bid = dec.src(ops[0], "u32")
    cnt = dec.src(ops[1], "u32") if len(ops) > 1 else None
    return Op(BAR, scheduler_op, ins, fname, guard, bar=Barrier(bid, cnt, wait, red))


BUILTINS = {"vprintf", "__assertfail", "malloc", "free"}


def _call(dec: Decoder, ins: ir.Instruction, fname: str, guard: Guard) -> Op:
    """``call{.uni} (rets), f, (args)`` (ISA §9.7.12.3): arguments copied into the callee's .param
    slots on entry, results copied back by the op placed right after the call."""
    ops = list(ins.operands)
    rets: list[ir.Operand] = []
    if ops and isinstance(ops[0], ir.ParamList):
        rets = list(ops[0].items)
        ops.pop(0)
    if not ops or not isinstance(ops[0], ir.Sym):
        return Op(NORMAL, dec.unsupported("indirect call"), ins, fname, guard)
    callee_name = ops[0].name
    ops.pop(0)
    args: list[ir.Operand] = list(ops[0].items) if ops and isinstance(ops[0], ir.ParamList) else []
    rets, args = _flatten(dec, rets), _flatten(dec, args)
    callee = dec.module.function(callee_name)
    if callee is None:
        raise dec.error(f"call of unknown function '{callee_name}'", ins)
    if callee.body is None:
        if callee_name not in BUILTINS:
            return Op(NORMAL, dec.unsupported(f"a call of the external function '{callee_name}'"),
                      ins, fname, guard)
        info = CallInfo(callee_name, builtin=callee_name)
        info.copy_in = _builtin(dec, callee_name, rets, args, ins)
        return Op(CALL, scheduler_op, ins, fname, guard, call=info)
    if callee_name == fname or callee is dec.prog.entry:
        raise dec.error("recursive calls are not supported by the simulator", ins)
    dec.pending_funcs.append(callee)
    info = CallInfo(callee_name)
    # the callee's formal params get their slots when it is walked; bind lazily. An actual is a
    # .param symbol of the caller (copied slot to slot) or a value (a register, a constant).
    def param_sym(o: ir.Operand) -> SymInfo | None:
        return dec.symbol(o.name) if isinstance(o, (ir.Sym, ir.Reg)) and dec.reg_index(o) is None else None

    arg_syms = [param_sym(a) for a in args]
    arg_vals = [dec.src(a, _reg_type(dec, a)) if sym is None else None for a, sym in zip(args, arg_syms)]
    ret_syms = [param_sym(r) for r in rets]
    ret_types = [_reg_type(dec, r) for r in rets]
    ret_regs = [dec.dst(r, t) if sym is None else None for r, t, sym in zip(rets, ret_types, ret_syms)]

    def copy_in(st: State, m: Mask) -> None:
        params_f = dec.func_params[callee_name][1]
        for sym, v, formal in zip(arg_syms, arg_vals, params_f):
            if formal.space == "reg":
                if sym is not None:
                    raw = st.mem.load("param", np.full(st.n, sym.addr, np.uint64), formal.size, m, st)
                else:
                    assert v is not None
                    val = np.broadcast_to(np.asarray(v(st)), (st.n,))
                    raw = val.view(UINT_BITS[val.dtype.itemsize * 8]) if val.dtype != np.bool_ else val
                _reg_store(st, formal.addr, raw, m)
            elif sym is not None:
                _param_copy(st, sym.addr, formal.addr, min(sym.size, formal.size), m)
            else:
                assert v is not None
                val = v(st)
                size = formal.size
                raw = np.asarray(val).view(UINT_BITS[np.asarray(val).dtype.itemsize * 8])
                st.mem.store("param", np.full(st.n, formal.addr, np.uint64), size,
                             convert_raw(raw, raw.dtype.itemsize * 8, size * 8, False), m, st)

    def copy_out(st: State, m: Mask) -> None:
        rets_f = dec.func_params[callee_name][0]
        for sym, w, typ, formal in zip(ret_syms, ret_regs, ret_types, rets_f):
            if formal.space == "reg":
                v = st.R[formal.addr]
                if sym is not None:
                    st.mem.store("param", np.full(st.n, sym.addr, np.uint64), v.dtype.itemsize, v, m, st)
                else:
                    assert w is not None
                    tb = max(type_bits(typ), 8)
                    raw = v if v.dtype == np.bool_ else convert_raw(v, v.dtype.itemsize * 8, tb, False)
                    w(st, raw if typ == "pred" else raw.view(np_type(typ)), m)
            elif sym is not None:
                _param_copy(st, formal.addr, sym.addr, min(sym.size, formal.size), m)
            else:
                assert w is not None
                size = type_bytes(typ)
                raw = st.mem.load("param", np.full(st.n, formal.addr, np.uint64), size, m, st)
                w(st, raw.view(np_type(typ)), m)

    info.copy_in, info.copy_out = copy_in, copy_out
    return Op(CALL, scheduler_op, ins, fname, guard, call=info)


def _flatten(dec: Decoder, actuals: list[ir.Operand]) -> list[ir.Operand]:
    """Call actuals with vector registers and brace lists replaced by their components, in order (a
    vector .reg parameter takes one actual per component)."""
    out: list[ir.Operand] = []
    for a in actuals:
        comps = dec.scope.vector(a.name) if isinstance(a, (ir.Reg, ir.Sym)) else None
        if comps:
            out += [ir.Reg(c) for c in comps]
        elif isinstance(a, ir.Vec):
            out += list(a.items)
        else:
            out.append(a)
    return out


def _reg_store(st: State, idx: int, raw: np.ndarray, m: Mask) -> None:
    """Write raw bits into register ``idx`` (width-adjusted to its storage), lanes ``m`` only."""
    cur = st.R[idx]
    if cur.dtype == np.bool_:
        v = raw != 0 if raw.dtype != np.bool_ else raw
    else:
        rb = raw.dtype.itemsize * 8 if raw.dtype != np.bool_ else 8
        v = convert_raw(raw.astype(np.uint8) if raw.dtype == np.bool_ else raw, rb, cur.dtype.itemsize * 8, False)
    st.R[idx] = np.array(v, dtype=cur.dtype) if m is None else np.where(m, v, cur).astype(cur.dtype)


def _reg_type(dec: Decoder, op: ir.Operand) -> str:
    dt = dec.reg_dtype(op)
    if dt is None:
        return "b32"
    return "pred" if dt == np.bool_ else f"b{np.dtype(dt).itemsize * 8}"


def _param_copy(st: State, src: int, dst: int, size: int, m: Mask) -> None:
    """Copy ``size`` bytes between two .param slots of every lane (bytewise: slots may be odd-sized)."""
    n = st.n
    for k in range(size):
        v = st.mem.load("param", np.full(n, src + k, np.uint64), 1, m, st)
        st.mem.store("param", np.full(n, dst + k, np.uint64), 1, v, m, st)


def _builtin(dec: Decoder, name: str, rets: list[ir.Operand], args: list[ir.Operand],
             ins: ir.Instruction) -> LaneOp:
    """Device-runtime functions nvcc calls (``vprintf``, ``__assertfail``)."""
    err = dec.error("device-side assertion failed (__assertfail)", ins)
    arg_syms = [dec.symbol(a.name) for a in args if isinstance(a, (ir.Sym, ir.Reg))]
    ret_syms = [dec.symbol(r.name) for r in rets if isinstance(r, (ir.Sym, ir.Reg))]
    fmt_addr = buf_addr = 0
    if name == "vprintf":
        fmt_sym, buf_sym = [*arg_syms, None, None][:2]
        if fmt_sym is None or buf_sym is None:
            raise dec.error("vprintf takes two .param arguments (format, argument buffer)", ins)
        fmt_addr, buf_addr = fmt_sym.addr, buf_sym.addr

    def run(st: State, m: Mask) -> None:
        if name == "__assertfail":
            raise err
        if name == "vprintf":
            fmt = st.mem.load("param", np.full(st.n, fmt_addr, np.uint64), 8, m, st)
            buf = st.mem.load("param", np.full(st.n, buf_addr, np.uint64), 8, m, st)
            lanes = range(st.n) if m is None else np.flatnonzero(m)
            for lane in lanes:
                st.stdout.append(vprintf(st, int(fmt[lane]), int(buf[lane]), int(lane)))
            if ret_syms and ret_syms[0] is not None:
                st.mem.store("param", np.full(st.n, ret_syms[0].addr, np.uint64), 4, np.uint32(0), m, st)
            return
        raise dec.error(f"the simulator does not implement '{name}'", ins, NotImplementedInstruction)
    return run
