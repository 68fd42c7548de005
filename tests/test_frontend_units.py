"""Front end unit checks against hand-computed expectations (ISA §4.5 literals, §4.6 expressions,
§6.4 operands), error rendering and recovery, the printer's edits, the instruction table."""

from __future__ import annotations

import struct

import pytest
from conftest import needs_shared

from ptxkit import ir
from ptxkit.errors import PtxkitError
from ptxkit.ir import Addr, AddrList, Expr, FloatImm, Imm, Not, ParamList, Pipe, Reg, Sink, Sym, Vec
from ptxkit.ptx import isa
from ptxkit.ptx.emit import emit, format_statement
from ptxkit.ptx.parser import parse, parse_reference
from ptxkit.ptx.types import element_bytes

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def body(stmts: str, decls: str = "") -> str:
    return HEAD + ".visible .entry k(\n\t.param .u64 k_p\n)\n{\n" + decls + stmts + "\n}\n"


def ops(stmt: str) -> tuple:
    """Operands of one instruction, through both parsers (which must agree)."""
    src = body("\t" + stmt)
    a = next(parse(src).functions()[0].instructions())
    b = next(parse_reference(src).functions()[0].instructions())
    assert a == b
    return a.operands


@pytest.mark.parametrize("text, want", [
    ("ld.global.f32 %f1, [%rd1+-4];", Addr(Reg("%rd1"), -4)),
    ("ld.global.f32 %f1, [ %rd1 + 0 ];", Addr(Reg("%rd1"), 0)),
    ("ld.global.f32 %f1, [%rd1-8];", Addr(Reg("%rd1"), -8)),
    ("ld.global.f32 %f1, [%rd1+0x10];", Addr(Reg("%rd1"), 16)),
    ("ld.param.u64 %rd1, [k_p+8];", Addr(Sym("k_p"), 8)),
    ("ld.param.u64 %rd1, [k_p+4*2+1];", Addr(Sym("k_p"), 9)),
    ("ld.local.u32 %r1, [12];", Addr(None, 12)),
    ("ld.global.f32 %f1, [%rd1];", Addr(Reg("%rd1"), 0)),
])
def test_address_operands(text, want):
    assert ops(text)[1] == want


@pytest.mark.parametrize("lit, value", [
    ("42", 42), ("0x2A", 42), ("0X2a", 42), ("052", 42), ("0b101010", 42), ("42U", 42), ("0", 0),
    ("-1", -1), ("(1+2)*3", 9), ("1+2*3", 7), ("1<<4", 16), ("-7/2", -3), ("7 % 3", 1), ("-7 % 3", -1),
    ("~0", -1), ("!0", 1), ("!5", 0), ("3>2", 1), ("2==2 && 1", 1), ("0 || 0", 0),
    ("6&3|8", 10), ("6^3", 5), ("1 ? 10 : 20", 10), ("0xFFFFFFFF", 4294967295),
])
def test_integer_constants(lit, value):
    assert ops(f"mov.u32 %r1, {lit};")[1] == Imm(value)


def _f64(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


@pytest.mark.parametrize("lit, want", [
    ("0f3F800000", FloatImm(0x3F800000, 32)),
    ("0F3f800000", FloatImm(0x3F800000, 32)),
    ("0d3FF0000000000000", FloatImm(0x3FF0000000000000, 64)),
    ("1.5", FloatImm(_f64(1.5), 64)),
    ("-1.5", FloatImm(_f64(-1.5), 64)),
    ("1e3", FloatImm(_f64(1000.0), 64)),
])
def test_float_constants(lit, want):
    assert ops(f"mov.f32 %f1, {lit};")[1] == want


def test_other_operand_forms():
    assert ops("mov.b64 {%r1, %r2}, %rd1;")[0] == Vec((Reg("%r1"), Reg("%r2")))
    assert ops("mov.b32 { %r1 }, %f1;")[0] == Vec((Reg("%r1"),))
    assert ops("shfl.sync.idx.b32 %r1|%p1, %r2, 0, 31, -1;")[0] == Pipe(Reg("%r1"), Reg("%p1"))
    assert ops("setp.lt.s32 %p1|%p2, %r1, %r2;")[0] == Pipe(Reg("%p1"), Reg("%p2"))
    assert ops("selp.b32 %r1, 1, 0, !%p1;")[3] == Not(Reg("%p1"))
    assert ops("mov.u32 %r1, %tid.x;")[1] == Reg("%tid.x")
    assert ops("bra $L__BB0_2;")[0] == Sym("$L__BB0_2")
    assert ops("mbarrier.arrive.shared.b64 _, [%r1];")[0] == Sink()
    assert ops("call.uni (retval0), foo, (param0, param1);") == (
        ParamList((Sym("retval0"),)), Sym("foo"), ParamList((Sym("param0"), Sym("param1"))))
    assert ops("call.uni foo, ();")[1] == ParamList(())
    assert ops("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];")[1] == AddrList(
        (Reg("%rd1"), Vec((Reg("%f5"), Reg("%f6")))))
    assert ops("mov.u64 %rd1, k_p+4;")[1] == Expr("k_p+4")
    assert ops("add.u32 %r0, %r1+1, 2;")[1] == Expr("%r1+1")


def test_guards_mods_and_opcode_forms():
    src = body("\t@!%p1 bra.uni $L1;\n\t@%p2 ld.global.L2::64B.v4.b32 {%r1,%r2,%r3,%r4}, [%rd1];\n"
               "$L1:\n\ttcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;\n\tret;")
    ins = list(parse(src).functions()[0].instructions())
    assert ins[0].guard == ir.Guard("%p1", True) and ins[0].opcode == "bra" and ins[0].mods == ("uni",)
    assert ins[1].guard == ir.Guard("%p2", False)
    assert ins[1].mods == ("global", "L2::64B", "v4", "b32")
    assert ins[2].opcode == "tcgen05" and ins[2].mods == ("mma", "cta_group::1", "kind::f16")
    assert ins[3].operands == ()


def test_declarations():
    src = HEAD + (".extern .shared .align 16 .b8 smem[];\n"
                  ".global .align 4 .u32 tbl[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
                  ".global .u64 ptrs[2] = {generic(tbl), generic(tbl)+8};\n"
                  ".visible .func (.param .b32 r) f(.param .u64 .ptr .global .align 1 p, .param .align 8 .b8 s[16])\n"
                  "{\n\t.reg .b32 \t%r<35>, %x;\n\t.reg .v4 .f32 %v;\n\tret;\n}\n"
                  ".visible .entry k() .maxntid 128, 1, 1 .minnctapersm 2\n{\n\tret;\n}\n")
    m = parse(src)
    smem, tbl, ptrs, f, k = m.items[3:]
    assert (smem.space, smem.type, smem.align, smem.dims, smem.linkage) == ("shared", "b8", 16, (None,), ("extern",))
    assert tbl.dims == (2, 3) and tbl.init == [[Imm(1), Imm(2), Imm(3)], [Imm(4), Imm(5), Imm(6)]]
    assert tbl.count == 6 and element_bytes(tbl) == 4
    assert ptrs.init == [Expr("generic(tbl)"), Expr("generic(tbl)+8")]
    assert f.kind == "func" and f.ret_params[0].name == "r" and f.linkage == ("visible",)
    assert f.params[0].attrs == ("ptr", "global", "align 1") and f.params[0].align is None
    assert f.params[1].align == 8 and f.params[1].dims == (16,)
    r = f.body[0]
    assert r.names == (("%r", 35), ("%x", None)) and len(list(r.expand())) == 36
    assert f.body[1].vector == 4
    assert [d.name for d in k.directives] == ["maxntid", "minnctapersm"]
    assert k.directives[0].args == "128, 1, 1"
    assert m.version == "8.0" and m.target == ["sm_90"] and m.address_size == 64
    assert parse_reference(src).items == m.items


def test_non_percent_registers_resolve_to_reg():
    src = body("\tld.param.u64 in_addr, [k_p];\n\tld.u64 tmp, [in_addr];\n\tmov.u32 t2, v.x;",
               "\t.reg .u64 in_addr;\n\t.reg .u64 tmp;\n\t.reg .u32 t2;\n\t.reg .v2 .u32 v;\n")
    ins = list(parse(src).functions()[0].instructions())
    assert ins[0].operands == (Reg("in_addr"), Addr(Sym("k_p"), 0))
    assert ins[1].operands == (Reg("tmp"), Addr(Reg("in_addr"), 0))
    assert ins[2].operands == (Reg("t2"), Reg("v.x"))


def test_directives_and_callprototype():
    src = HEAD + ('.file 1 "/x/a.cu", 1700000000, 1234\n'
                  ".visible .func f()\n{\n\t.loc\t1 30 5, function_name $L__info_string0, inlined_at 1 20 3\n"
                  '\t.pragma "nounroll";\n\tproto_0 : .callprototype (.param .b32 _) _ (.param .b64 _);\n'
                  "\t{\n\t.reg .pred p;\n\tret;\n\t}\n}\n")
    m = parse(src)
    assert m.items[3] == ir.Directive("file", '1 "/x/a.cu", 1700000000, 1234')
    b = m.functions()[0].body
    assert b[0] == ir.Directive("loc", "1 30 5, function_name $L__info_string0, inlined_at 1 20 3")
    assert b[1] == ir.Directive("pragma", '"nounroll"')
    assert b[2] == ir.Directive("callprototype", "(.param .b32 _) _ (.param .b64 _)", label="proto_0")
    assert isinstance(b[3], ir.Block) and isinstance(b[3].body[0], ir.RegDecl)
    assert parse_reference(src).items == m.items


# ---------------------------------------------------------------- errors and recovery

def test_error_rendering_and_recovery():
    src = body("\tadd.f32 %f1 %f2;\n\tmov.u32 %r1, 5;\n\tmov.u32 %r1, ;\n\tret;\n\tld.u32 %r2, [%r1+];")
    with pytest.raises(PtxkitError) as ei:
        parse(src, "k.ptx")
    ds = ei.value.diagnostics
    assert [(d.line, d.col) for d in ds] == [(8, 14), (10, 15), (12, 19)]
    assert ds[0].render() == "k.ptx:8:14: error: unexpected '%f2'\n add.f32 %f1 %f2;\n             ^"


@pytest.mark.parametrize("text, where", [
    ("\tmov.u32 %r1, 08;", (8, 15)),           # not an octal constant
    ("\t{\n\tret;", (7, 1)),                   # unclosed block: the body's '{' is reported
    ("\tld.u32 %r1, [%r2+%r3];", (8, 14)),     # not an address form
    ("\t.reg .b32 %r<4>[2];", (8, 2)),
    ("\tret", (8, 5)),                          # missing ';' before '}'
    ("\tmov.u32 %r1, 7%3;", (8, 16)),          # '%3' is a register name: ptxas says the same
    ("\tmov.f32 %f1, -0f3F800000;", (8, 15)),  # ptxas: syntax error
])
def test_errors_have_positions(text, where):
    with pytest.raises(PtxkitError) as ei:
        parse(body(text))
    d = ei.value.first
    assert (d.line, d.col) == where, d.render()


def test_unknown_opcode_parses():
    m = parse(body("\tfrobnicate.x.y %r1, [%rd1+4];"))
    i = next(m.functions()[0].instructions())
    assert i.opcode == "frobnicate" and not isa.info("frobnicate").known
    assert isa.defs(i) == [0] and isa.uses(i) == [1]


# ---------------------------------------------------------------- printer

SRC = body("\tmov.u32 \t%r1, 1;  // one\n\tadd.s32 \t%r2, %r1, 1;\n\tret;")


def test_emit_unmodified_is_identity():
    assert emit(parse(SRC)) == SRC


def test_emit_edits():
    m = parse(SRC)
    mov, add, ret = m.functions()[0].instructions()
    new = ir.Instruction("add", ("rn", "f32"), (Reg("%f3"), Reg("%f1"), Reg("%f2")))
    m.insert_before(mov, [new])
    m.insert_after(mov, ["\t// raw"])
    m.replace(add, [])
    m.replace(ret, [ir.Instruction("exit", (), (), ir.Guard("%p1", True))])
    assert emit(m) == body("\tadd.rn.f32 \t%f3, %f1, %f2;\n\tmov.u32 \t%r1, 1;  // one\n\t// raw\n"
                           "\t@!%p1 exit;")


def test_format_statement_canonical():
    assert format_statement(ir.Instruction("add", ("rn", "f32"), (Reg("%f3"), Reg("%f1"), Reg("%f2")))) \
        == "\tadd.rn.f32 \t%f3, %f1, %f2;"
    assert format_statement(ir.Instruction("ld", ("global", "f32"), (Reg("%f1"), Addr(Reg("%rd1"), -4)))) \
        == "\tld.global.f32 \t%f1, [%rd1+-4];"
    assert format_statement(ir.Label("$L1")) == "$L1:"
    assert format_statement(ir.RegDecl("b32", (("%r", 5),))) == "\t.reg .b32 \t%r<5>;"


# ---------------------------------------------------------------- instruction table

@pytest.mark.parametrize("stmt, d, u, dt", [
    ("add.rn.f32 %f3, %f1, %f2;", [0], [1, 2], "f32"),
    ("cvt.rn.f32.f64 %f1, %fd1;", [0], [1], "f32"),
    ("cvt.rn.f16x2.f32 %r1, %f1, %f2;", [0], [1, 2], "f16x2"),
    ("mul.wide.s32 %rd1, %r1, 4;", [0], [1, 2], "s32"),
    ("st.global.f32 [%rd1], %f1;", [], [0, 1], "f32"),
    ("ld.global.v4.b32 {%r1,%r2,%r3,%r4}, [%rd1];", [0], [1], "b32"),
    ("atom.global.add.f32 %f1, [%rd1], %f2;", [0], [1, 2], "f32"),
    ("red.global.add.f32 [%rd1], %f2;", [], [0, 1], "f32"),
    ("setp.lt.s32 %p1, %r1, %r2;", [0], [1, 2], "s32"),
    ("bra.uni $L1;", [], [0], None),
    ("call.uni (retval0), foo, (param0);", [0], [1, 2], None),
    ("call.uni foo, (param0);", [], [0, 1], None),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, "
     "{%f5,%f6,%f7,%f8};",
     [0], [1, 2, 3], "f32"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1,%f2,%f3,%f4}, %rd1, %rd2, 1, 1, 1, 1, 1;",
     [0], [0, 1, 2, 3, 4, 5, 6, 7], "f32"),
    ("mbarrier.init.shared.b64 [%r1], 1;", [], [0, 1], "b64"),
    ("mbarrier.try_wait.parity.shared.b64 %p1, [%r1], %r2;", [0], [1, 2], "b64"),
    ("bar.sync 0;", [], [0], None),
])
def test_isa_roles(stmt, d, u, dt):
    i = next(parse(body("\t" + stmt)).functions()[0].instructions())
    assert isa.defs(i) == d and isa.uses(i) == u and isa.data_type(i) == dt


def test_isa_properties():
    assert isa.info("ld").memory and isa.info("ld").load and not isa.info("ld").store
    assert isa.info("st").store and isa.info("bra").branch and isa.info("ret").ret
    assert isa.info("atom").atomic and isa.info("call").call and isa.info("bar").sync
    assert isa.info("fma").float_capable and not isa.info("and").float_capable


def _instr(stmt: str) -> ir.Instruction:
    return next(parse(body("\t" + stmt)).functions()[0].instructions())


E = isa.MemoryEffect
# (instruction, its memory effect): ISA §9.7.9.8/§9.7.9.10 (ld/st), §9.7.13.5-7 (atom/red/multimem
# are read-modify-writes), §9.7.13.4 (fence/membar), §9.7.13.1 and §9.7.13.15 (barriers), §9.7.9.25
# (cp.async copies; commit/wait order them), §9.7.9.15 (prefetch is a hint), §9.7.10.4 (txq queries)
EFFECTS = [
    ("ld.global.u32 %r1, [%rd1];", E.LOAD), ("ldu.global.f32 %f1, [%rd1];", E.LOAD),
    ("ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];", E.LOAD),
    ("suld.b.1d.v4.b32.trap {%r1, %r2, %r3, %r4}, [s, {%r5}];", E.LOAD),
    ("st.shared.u32 [%r1], %r2;", E.STORE), ("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r1], {%r2};", E.STORE),
    ("atom.global.add.u32 %r1, [%rd1], 1;", E.RMW), ("red.global.add.f32 [%rd1], %f1;", E.RMW),
    ("multimem.red.relaxed.gpu.global.add.u32 [%rd1], %r1;", E.RMW),
    ("multimem.ld_reduce.relaxed.gpu.global.add.u32 %r1, [%rd1];", E.LOAD),
    ("fence.acq_rel.gpu;", E.FENCE), ("membar.sys;", E.FENCE), ("fence.proxy.async.shared::cta;", E.FENCE),
    ("bar.sync 0;", E.BARRIER), ("barrier.cta.arrive 1, 64;", E.BARRIER),
    ("mbarrier.arrive.shared.b64 %rd1, [%r1];", E.BARRIER),
    ("cp.async.ca.shared.global [%r1], [%rd1], 16;", E.COPY), ("cp.async.wait_group 0;", E.FENCE),
    ("prefetch.global.L2 [%rd1];", E.NONE), ("txq.width.b32 %r1, [t];", E.NONE),
    ("add.s32 %r1, %r2, %r3;", E.NONE), ("bra $L1;", E.NONE),
]


@pytest.mark.parametrize("stmt,effect", EFFECTS)
def test_isa_memory_effect(stmt, effect):
    i = _instr(stmt)
    assert isa.memory_effect(i.opcode, i.mods) is effect


def test_isa_derived_sets_and_float_ops():
    assert {"ld", "ldu", "ldmatrix", "tex", "tld4", "suld"} <= isa.LOAD_OPCODES
    assert {"st", "stmatrix", "sust"} <= isa.STORE_OPCODES and {"atom", "red", "sured"} <= isa.RMW_OPCODES
    assert not (isa.LOAD_OPCODES | isa.STORE_OPCODES | isa.RMW_OPCODES) & {"txq", "suq", "prefetch", "mov"}
    # operand 0 is never written by these (ISA: stores, branches, barriers, fences take no destination)
    assert {"st", "red", "bra", "brx", "bar", "fence", "membar", "ret", "exit", "cp"} <= isa.NO_DEST_OPCODES
    assert not {"ld", "atom", "add", "mov", "setp", "mma", "vote"} & isa.NO_DEST_OPCODES
    assert isa.is_float_op(_instr("add.rn.f32 %f1, %f2, %f3;"))
    assert isa.is_float_op(_instr("cvt.rn.f32.s32 %f1, %r1;"))
    assert not isa.is_float_op(_instr("add.s32 %r1, %r2, %r3;"))
    assert not isa.is_float_op(_instr("and.b32 %r1, %r2, %r3;"))


def test_new_function_and_globals_print_and_reparse():
    m = parse(SRC)
    k = m.functions()[0]
    f = ir.Function("func", "g", [ir.VarDecl("param", "u64", "g_p", align=8)],
                    [ir.VarDecl("param", "b32", "g_r")], ("visible",),
                    [ir.Directive("noreturn")],
                    [ir.RegDecl("b32", (("%r", 3),)), ir.Label("$L0"),
                     ir.Block([ir.Instruction("mov", ("b32",), (Reg("%r1"), Imm(-3)))]),
                     ir.Instruction("ret", (), ())])
    tbl = ir.VarDecl("global", "u32", "tbl", align=4, dims=(2,), init=[Imm(1), Imm(2)])
    m.insert_after(k, [f])
    m.insert_before(k, [tbl])
    again = parse(emit(m))
    assert again.globals() == [tbl]
    assert again.functions()[1] == f
    assert again.functions()[0] == k


@needs_shared
def test_every_corpus_opcode_is_in_the_table():
    from conftest import shared_files

    seen = set()
    for p in shared_files("**/*.ptx"):
        if "/pass/test/" in p.as_posix() or "thrust_big" in p.name or "shared_ptr" in p.name:
            continue
        from ptxkit.ptx.parser import parse_file

        for fn in parse_file(p).functions():
            seen.update(i.opcode for i in fn.instructions())
    unknown = sorted(op for op in seen if not isa.is_known(op))
    assert not unknown
    # the loop really saw the corpus (nvcc, Triton, ZLUDA, pyptx: 88 distinct opcodes)
    assert len(seen) >= 80 and {"ld", "st", "mma", "wgmma", "cp", "shfl", "bar"} <= seen, sorted(seen)


def test_attribute_and_parameterised_variables():
    m = parse(HEAD + ".global .attribute(.managed) .align 4 .u32 x;\n.local .u32 %q<3>;\n")
    x = m.globals()[0]
    assert x.attrs == ("attribute(.managed)",) and x.align == 4
    assert [g.name for g in m.globals()[1:]] == ["%q0", "%q1", "%q2"]


def test_reg_parameters_of_func():
    # ISA §11.1.2: `.func` parameters may live in the .reg space; names without `%` are registers
    src = (".version 6.5\n.target sm_30\n.address_size 64\n"
           ".func (.reg .u32 a, .reg .pred b) f(\n    .reg .u32 x\n)\n{\n"
           "    add.u32 a, x, 1;\n    setp.eq.u32 b, 0, 0;\n    ret;\n}\n")
    for parser in (parse, parse_reference):
        fn = parser(src, "t.ptx").functions()[0]
        assert [(p.space, p.type, p.name) for p in fn.ret_params] == [("reg", "u32", "a"), ("reg", "pred", "b")]
        assert [(p.space, p.type, p.name) for p in fn.params] == [("reg", "u32", "x")]
        add = next(fn.instructions())
        assert add.operands == (Reg("a"), Reg("x"), Imm(1))
