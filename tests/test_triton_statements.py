"""The statement-level kernel generator (``ptxkit.corpus.triton_statements``, issue 10): deterministic, valid Python,
and on Triton 3.9 each kernel of a fixed sample bit-exact against Triton's own FPSan build or reported (``--strict``
fails), never silent; the kernels still silent are listed (strict xfail) with what LLVM does there."""

from __future__ import annotations

import ast

import pytest

from ptxkit.corpus.triton_check import TRITON_VERSION, check, triton_available
from ptxkit.corpus.triton_statements import generate_statements

needs_triton = pytest.mark.skipif(triton_available() != TRITON_VERSION,
                                  reason=f"Triton {TRITON_VERSION} not installed (pip install 'ptxkit[triton]')")


def test_statement_kernels_are_deterministic_valid_python():
    seen = set()
    for seed in range(100):
        spec = generate_statements(seed)
        assert spec == generate_statements(seed)
        tree = ast.parse(spec.source)
        kernel = next(f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == spec.name)
        assert isinstance(kernel.body[-1], ast.Expr) and "tl.store(out_ptr" in ast.unparse(kernel.body[-1])
        assert set(spec.signature) >= {"out_ptr", "n", "BLOCK"} and spec.constexprs["BLOCK"] in (256, 1024)
        seen |= {type(n).__name__ for n in ast.walk(kernel)}
    # the statement forms the generator exists for
    assert {"AugAssign", "AnnAssign", "For", "If"} <= seen


# seeds silent at first contact (each a class with its own Triton pair in tests/data/triton_libdevice), now bit-exact
EXACT = [184, 203, 236, 250, 492, 588, 623, 988, 1035, 1389, 1800,
         272, 636, 642, 797, 921, 1150, 1441, 1785, 1830, 1967, 2106, 2160, 2239, 2432, 2699, 3131, 1049]  # (stop 51)
EXACT += [3733, 3924, 4145]  # (stop 52)
EXACT += [4333, 4961, 2147, 1026, 3682, 5337]  # (stop 53; 1026, 3682, 5337 reported before)
EXACT += [5202, 5461, 5463, 965, 5818, 6010, 6028, 6180, 5915]  # (stop 54; 965 a composite in OPEN, 5915 reported)
# ... now reported: what LLVM folded away the PTX cannot give back
REPORTED = [67, 76, 330, 1069, 1235, 425, 658, 1740, 2971]  # (425, 658, 1740, 2971: stop 51)
REPORTED += [3671, 4254]  # (stop 52: v0 = S of a constexpr S, of S's Python type; fma(x, x, 3.0).to(f64) < 0)
REPORTED += [111, 1863, 2874, 3119, 4093]  # (stop 52: where(x > x, a, c) of a constant c, LLVM's c after)
REPORTED += [1302, 4868]  # (stop 53: where(x > x, a, b) read as b, a half's |x| differs; 4868 bit-exact, its |x|
# of a half reported by design)
REPORTED += [5248]  # (stop 53: v.to(bf16) > v of v = 0.1, constants LLVM compares natively, Triton's ring otherwise)
REPORTED += [5511, 5615, 5709]  # (stop 54: where(h.to(f32) > h, h, 3.0), the compare at its cast's location;
# where(-c < 0, -c, x0).to(f16) of a dead x0, its type unknown; where(v > v, x1, S) of a constexpr S)
# still silent (of the first 1,600 and one later): what the source hints do not follow there
_COMPOSITE = "several of LLVM's rewrites in one expression (not reduced to one class yet)"
OPEN = {
    747: _COMPOSITE,
    999: "c = 0.5; v = tl.maximum(c, h) read both narrowed (v.to(f16)) and at f32: LLVM's one max.f16 for both",
    1723: "v0 = sigmoid(|x0|) reassigned under `if FLAG:` (a constexpr False): the comparison of its narrowing at f16 "
          "is undecided",
    # the silent ones of seeds 1,100-1,599 in the closing sweep of stop 50
    1126: _COMPOSITE, 1563: _COMPOSITE,
    # the silent ones of seeds 1,600-3,199 left at the end of stop 51
    2382: "tl.log2(tl.where(S < 0, S, x)) of a negative constexpr S: LLVM's NaN constant, MLIR leaves the log2",
    2531: _COMPOSITE, 2806: _COMPOSITE, 3151: "-x0 + x0 / x0 of a half, widened into an f64 exp: differs at x0 = -0.0",
    # the silent ones of seeds 3,600-4,599 left at the end of stop 52
    4016: _COMPOSITE, 4491: _COMPOSITE,
    4097: "v -= where(where(h < 0, h, c) > (10.0 - v), 0.044715, h) of an f64 v, c = 3.0: silent at the base too",
    4580: "tl.where(p, tl.exp(tl.floor(S).to(f32)), x) + v of a constexpr S: LLVM's exp of S, whose value the source "
          "does not give",
    # the silent ones of seeds 5,000-5,399 at the end of stop 53 (silent at its base too); 5202 bit-exact in stop 54
    5080: "v0 = 0.5; v0 *= tl.minimum((v0.to(bf16) + c).to(f64), tl.fdiv(c.to(f32), h)): LLVM's min.f32 of the "
          "f32 constant and the fdiv, widened after; Triton's ring min at f64 of φ_f64(c) and the fdiv's sign "
          "extension",
    5367: _COMPOSITE,
}


# (each compiles with Triton twice and runs both builds: the slow tier, beside the expression generator's sweep)
@needs_triton
@pytest.mark.slow
@pytest.mark.parametrize("seed", EXACT)
def test_statement_kernel_is_bit_exact(seed):
    o = check(generate_statements(seed))
    assert o.status == "exact" and not o.strict_fails, (o.status, o.detail, o.reported[:2])


@needs_triton
@pytest.mark.slow
@pytest.mark.parametrize("seed", REPORTED + [pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=why))
                                             for s, why in OPEN.items()])
def test_statement_kernel_mismatch_is_reported(seed):
    o = check(generate_statements(seed))
    assert o.status in ("exact", "mismatch") and (o.status == "exact" or o.strict_fails), (o.status, o.detail)
