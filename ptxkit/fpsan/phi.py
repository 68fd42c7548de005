"""The one φ emitter: every PTX sequence of the sanitizer that computes φ (float bits → payload) or
φ⁻¹ (payload → float bits) is generated here (docs/fpsan.md §1), for two register shapes:

* full width (:func:`embed`, :func:`unembed`): the pattern fills its register (b16 for f16/bf16, b32
  for f32, b64 for f64) — the rewrite context's payloads;
* low bits (:func:`embed_low`, :func:`unembed_low`): a w-bit pattern in the low bits of a wider
  register whose high bits are zero (8-bit floats in b16, the standalone mma block's 16/32-bit
  patterns in b32), masked after every multiply.

An emitter is anything with ``fresh(kind) -> str`` (kinds ``pred``/``b16``/``b32``/``b64``) and
``emit(text)``.
"""

from __future__ import annotations

from typing import Protocol

from ptxkit.fpsan.ring import FloatRing


class Emitter(Protocol):
    def fresh(self, kind: str) -> str: ...

    def emit(self, text: str) -> None: ...


BITS_KIND = {16: "b16", 32: "b32", 64: "b64"}


def hexc(v: int, w: int) -> str:
    """An integer immediate of width w as PTX hex (``0x…`` is accepted for any .bN/.sN/.uN)."""
    return f"0x{v & ((1 << w) - 1):X}"


# ------------------------------------------------------------------------------ full-width registers

def embed(em: Emitter, u: str, r: FloatRing) -> str:
    """Emit φ(u) for an integer register u of the type's width; returns the payload register."""
    w, k = r.w, BITS_KIND[r.w]
    y, z, m, q, out = (em.fresh(k) for _ in range(5))
    p = em.fresh("pred")
    em.emit(f"mul.lo.s{w} {y}, {u}, {hexc(r.mulA, w)}")
    if w == 16:
        t = em.fresh(k)
        em.emit(f"shr.u16 {t}, {y}, {r.shift}")
        em.emit(f"and.b16 {t}, {t}, {hexc(r.mag >> r.shift, 16)}")
        em.emit(f"xor.b16 {z}, {t}, {y}")
    else:
        t = em.fresh(k)
        # bits shift..w-2 of y: the sign bit of y must not leak into the xorshift
        em.emit(f"bfe.u{w} {t}, {y}, {r.shift}, {w - 1 - r.shift}")
        em.emit(f"xor.b{w} {z}, {t}, {y}")
    em.emit(f"setp.lt.s{w} {p}, {u}, 0")
    em.emit(f"selp.b{w} {m}, {hexc(r.mulBNeg, w)}, {hexc(r.mulBPos, w)}, {p}")
    em.emit(f"mul.lo.s{w} {q}, {z}, {m}")
    with_sign(em, out, q, u, r)
    return out


def with_sign(em: Emitter, out: str, mag_src: str, sign_src: str, r: FloatRing, guard: str = "") -> None:
    """out = (mag_src & magMask) | (sign_src & signMask)."""
    w = r.w
    if w == 16:
        a, b = em.fresh("b16"), em.fresh("b16")
        em.emit(f"and.b16 {a}, {mag_src}, {hexc(r.mag, 16)}")
        em.emit(f"and.b16 {b}, {sign_src}, {hexc(r.sign, 16)}")
        em.emit(f"{guard}or.b16 {out}, {a}, {b}")
    else:
        # bfi inserts the low w-1 bits of mag_src into sign_src: one instruction (ISA §9.7.1.x bfi)
        em.emit(f"{guard}bfi.b{w} {out}, {mag_src}, {sign_src}, 0, {w - 1}")


def unembed(em: Emitter, v: str, r: FloatRing, dest: str, float_dest: bool, guard: str = "") -> None:
    """Emit ``dest = φ⁻¹(v)`` under the guard text ``guard``; a float-typed ``dest`` is written through
    a bit move (typed integer instructions reject float registers, ISA §6.4.3)."""
    w, k = r.w, BITS_KIND[r.w]
    p = em.fresh("pred")
    m, z, x = em.fresh(k), em.fresh(k), em.fresh(k)
    em.emit(f"setp.lt.s{w} {p}, {v}, 0")
    em.emit(f"selp.b{w} {m}, {hexc(r.invBNeg, w)}, {hexc(r.invBPos, w)}, {p}")
    em.emit(f"mul.lo.s{w} {z}, {v}, {m}")
    for s in r.unshifts:
        t, z2 = em.fresh(k), em.fresh(k)
        if w == 16:
            em.emit(f"shr.u16 {t}, {z}, {s}")
            em.emit(f"and.b16 {t}, {t}, {hexc(r.mag >> s, 16)}")
        else:
            em.emit(f"bfe.u{w} {t}, {z}, {s}, {w - 1 - s}")
        em.emit(f"xor.b{w} {z2}, {t}, {z}")
        z = z2
    em.emit(f"mul.lo.s{w} {x}, {z}, {hexc(r.invA, w)}")
    if float_dest:
        tmp = em.fresh(k)
        with_sign(em, tmp, x, v, r)
        em.emit(f"{guard}mov.b{w} {dest}, {tmp}")
    else:
        with_sign(em, dest, x, v, r, guard)


# ------------------------------------------------------------------------------ low bits of a wider register

def embed_low(em: Emitter, u: str, r: FloatRing, rb: int) -> str:
    """φ of the w-bit pattern in the low bits of the rb-bit register ``u`` (high bits zero); the
    payload comes back the same way."""
    k = f"b{rb}"
    y, t, z, sg, m, q, q2, out = (em.fresh(k) for _ in range(8))
    p = em.fresh("pred")
    em.emit(f"mul.lo.s{rb} {y}, {u}, {r.mulA}")
    em.emit(f"and.b{rb} {y}, {y}, {r.mag}")
    em.emit(f"shr.u{rb} {t}, {y}, {r.shift}")
    em.emit(f"xor.b{rb} {z}, {y}, {t}")
    em.emit(f"and.b{rb} {sg}, {u}, {r.sign}")
    em.emit(f"setp.ne.b{rb} {p}, {sg}, 0")
    em.emit(f"selp.b{rb} {m}, {r.mulBNeg}, {r.mulBPos}, {p}")
    em.emit(f"mul.lo.s{rb} {q}, {z}, {m}")
    em.emit(f"and.b{rb} {q2}, {q}, {r.mag}")
    em.emit(f"or.b{rb} {out}, {q2}, {sg}")
    return out


def unembed_low(em: Emitter, v: str, r: FloatRing, rb: int) -> str:
    """φ⁻¹ of the payload in the low w bits of the rb-bit register ``v`` (high bits ignored) → the
    float pattern in the low bits of a fresh register (high bits zero)."""
    k = f"b{rb}"
    v8, sg, m, z, z2, x, x2, out = (em.fresh(k) for _ in range(8))
    p = em.fresh("pred")
    em.emit(f"and.b{rb} {v8}, {v}, {hexc((1 << r.w) - 1, rb)}")
    em.emit(f"and.b{rb} {sg}, {v8}, {r.sign}")
    em.emit(f"setp.ne.b{rb} {p}, {sg}, 0")
    em.emit(f"selp.b{rb} {m}, {r.invBNeg}, {r.invBPos}, {p}")
    em.emit(f"mul.lo.s{rb} {z}, {v8}, {m}")
    em.emit(f"and.b{rb} {z2}, {z}, {r.mag}")
    for sh in r.unshifts:  # z < 2^(w-1): plain shifts undo the xorshift
        t, z3 = em.fresh(k), em.fresh(k)
        em.emit(f"shr.u{rb} {t}, {z2}, {sh}")
        em.emit(f"xor.b{rb} {z3}, {z2}, {t}")
        z2 = z3
    em.emit(f"mul.lo.s{rb} {x}, {z2}, {r.invA}")
    em.emit(f"and.b{rb} {x2}, {x}, {r.mag}")
    em.emit(f"or.b{rb} {out}, {x2}, {sg}")
    return out
