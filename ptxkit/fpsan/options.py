"""The sanitizer's options (docs/cli.md ``ptxkit sanitize``), checked once up front."""

from __future__ import annotations

from dataclasses import dataclass

from ptxkit.errors import PtxkitError


@dataclass(frozen=True)
class Options:
    """``homomorphic_casts``: narrowing casts truncate the payload instead of Triton 3.9's fold.
    ``atomics``: float ``atom/red.add`` stay ``native`` (Triton) or become ``ring`` CAS loops.
    ``sign_xor_as_neg``: ``xor.bN d, a, signmask`` is a float negation (see ``sanitize_module``).
    ``mma``: the float ``mma.sync`` expansion, ``shuffle``, ``limbs``, ``int8`` or ``auto`` (``ptxkit.fpsan.mma``)."""

    homomorphic_casts: bool = False
    atomics: str = "native"
    sign_xor_as_neg: bool = False
    mma: str = "shuffle"

    def check(self, filename: str) -> None:
        if self.mma not in ("auto", "shuffle", "limbs", "int8"):
            raise PtxkitError(f"mma expansion must be 'auto', 'shuffle', 'limbs' or 'int8', not {self.mma!r}",
                              file=filename)
        if self.atomics not in ("native", "ring"):
            raise PtxkitError(f"--atomics must be 'native' or 'ring', not {self.atomics!r}", file=filename)
