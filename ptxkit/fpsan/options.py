"""The sanitizer's options (docs/cli.md ``ptxkit sanitize``), checked once up front."""

from __future__ import annotations

from dataclasses import dataclass

from ptxkit.errors import PtxkitError

# --fold NAME=FORM: the source form of an LLVM fold the PTX cannot tell (ptxkit.fpsan.folds; the first
# form is the default, sanitized but reported as an error unless stated)
FOLD_FORMS: dict[str, tuple[str, ...]] = {
    "self-add": ("add", "mul2", "mul2-f32", "add-f32", "mul2-f64", "add-f64"),  # -fW: on x widened, narrowed back
    "sign-xor": ("neg", "bits"),
    "neg-cast": ("after", "before"),
    "half": ("native", "f32", "f64"),
    "half-int": ("f32", "f64"),  # cvt.rzi.sN.f16: h.to(f32).to(int) or h.to(f64).to(int) (ptxkit.fpsan.casts)
    "int-half": ("native", "f32"),  # cvt.rn.bf16.s64: i.to(bf16), or through f32 (ptxkit.fpsan.casts)
    # setp.num/nan x, x: x's NaN-ness, or a cast's; neg-T: of the ring's negation of x's cast to T (neg: of x's own)
    "self-compare": ("native", "f64", "f32", "f16", "bf16", "neg", "neg-f64", "neg-f32", "neg-f16", "neg-bf16"),
    "int-wide": ("direct", "f16", "bf16", "f32"),  # cvt.rn.f32.s16: i.to(f32), or i.to(h).to(f32) (ptxkit.fpsan.casts)
    # cvt.rzi.fT.fT: libdevice.trunc(x) (stated here), or x.to(intN).to(fT) (only the source tells intN)
    "trunc": ("call",),
    "zero-sign": ("mul", "copysign"),  # copysign.fT d, x, 0.0: 0.0 * x of a finite x, or a copysign call
}


@dataclass(frozen=True)
class Options:
    """``homomorphic_casts``: narrowing casts truncate the payload instead of Triton 3.9's fold.
    ``atomics``: float ``atom/red.add`` stay ``native`` (Triton) or become ``ring`` CAS loops.
    ``sign_xor_as_neg``: ``xor.bN d, a, signmask`` the dataflow cannot type is a float negation (the
    same as ``folds`` ``sign-xor=neg``).
    ``mma``: the float ``mma.sync`` expansion, ``shuffle``, ``limbs``, ``int8`` or ``auto`` (``ptxkit.fpsan.mma``).
    ``folds``: (NAME, FORM) pairs of ``--fold`` (:data:`FOLD_FORMS`).
    ``source_hints``: decide the folds ``--fold`` leaves open from the Python source the ``.file``/``.loc``
    debug lines name (``ptxkit.fpsan.source_hints``); ``source_root``: look that source up under this
    directory (the longest suffix of the ``.file`` path that exists there) instead of at its path."""

    homomorphic_casts: bool = False
    atomics: str = "native"
    sign_xor_as_neg: bool = False
    mma: str = "int8"
    folds: tuple[tuple[str, str], ...] = ()
    source_hints: bool = True
    source_root: str | None = None

    def check(self, filename: str) -> None:
        if self.mma not in ("auto", "shuffle", "limbs", "int8"):
            raise PtxkitError(f"mma expansion must be 'auto', 'shuffle', 'limbs' or 'int8', not {self.mma!r}",
                              file=filename)
        if self.atomics not in ("native", "ring"):
            raise PtxkitError(f"--atomics must be 'native' or 'ring', not {self.atomics!r}", file=filename)
        for name, form in self.folds:
            if name not in FOLD_FORMS:
                raise PtxkitError(f"--fold: unknown fold {name!r} (one of {', '.join(FOLD_FORMS)})", file=filename)
            if form not in FOLD_FORMS[name]:
                raise PtxkitError(f"--fold {name}: the source form must be {' or '.join(map(repr, FOLD_FORMS[name]))}, "
                                  f"not {form!r}", file=filename)
        stated = dict(self.folds)
        if self.sign_xor_as_neg and stated.get("sign-xor", "neg") != "neg":
            raise PtxkitError("--sign-xor-as-neg contradicts --fold sign-xor=bits", file=filename)

    def fold(self, name: str) -> str | None:
        """The source form the user stated for fold ``name`` (the last one given), else None."""
        if name == "sign-xor" and self.sign_xor_as_neg:
            return "neg"
        return dict(self.folds).get(name)
