"""`ptxkit sanitize IN.ptx -o OUT.ptx [--homomorphic-casts] [--atomics native|ring] [--strict]
[--fold NAME=FORM] [--report] [--json]` (docs/cli.md): write the FPSan version of a PTX file."""

from __future__ import annotations

import argparse
import json
import sys

from ptxkit.fpsan.options import FOLD_FORMS
from ptxkit.fpsan_ptx import sanitize_text
from ptxkit.io import atomic_write
from ptxkit.ptx.parser import encode, read_source

HELP = "rewrite a PTX file's floating-point arithmetic into FPSan ring arithmetic (Triton 3.9)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", metavar="IN.ptx", help="the PTX file to sanitize")
    p.add_argument("-o", "--output", metavar="OUT.ptx", default=None,
                   help="where to write the sanitized PTX (default: stdout; '-' = stdout)")
    p.add_argument("--homomorphic-casts", action="store_true",
                   help="narrowing float casts truncate the payload instead of Triton 3.9's fold")
    p.add_argument("--atomics", choices=["native", "ring"], default="native",
                   help="float atom.add/red.add: native (Triton's behaviour) or ring CAS loops")
    p.add_argument("--strict", action="store_true",
                   help="any floating-point instruction left unsanitized is an error (exit 2)")
    p.add_argument("--sign-xor-as-neg", action="store_true",
                   help="the same as --fold sign-xor=neg")
    p.add_argument("--fold", action="append", default=[], metavar="NAME=FORM", type=_fold,
                   help="state the source form of an LLVM fold the PTX cannot tell (then a note, not an error): "
                        "self-add=add|mul2|mul2-f64|add-f64|mul2-f32|add-f32 (add.fT x, x: x+x (default) or x*2.0, "
                        "-fW on a widened x narrowed back), sign-xor=neg|bits (a sign-bit xor "
                        "no instruction types: -x or integer), neg-cast=after|before (the sign xor of a float "
                        "cvt: -(x.to(T)) or (-x).to(T)), half=native|f32|f64 (16-bit add/sub/mul/setp: half "
                        "arithmetic or f32/f64 arithmetic on widened halves LLVM narrowed), half-int=f32|f64 "
                        "(cvt.rzi.sN.f16: h.to(f32).to(int) or h.to(f64).to(int)), int-half=native|f32 "
                        "(cvt.rn.bf16.s64: i.to(bf16) or through f32); repeatable")
    p.add_argument("--source-hints", choices=["on", "off"], default="on",
                   help="decide the folds --fold leaves open from the Python source the PTX's .file/.loc debug "
                        "lines name, when it exists and agrees with the instruction (default on)")
    p.add_argument("--source-root", metavar="DIR", default=None,
                   help="look the .file sources up under DIR (the longest suffix of their path found there)")
    p.add_argument("--mma", choices=["int8", "shuffle", "limbs", "auto"], default="int8",
                   help="float mma.sync expansion: int8 (default: integer mma on 8-bit payload limbs, as "
                        "Triton's FPSan dot; sm_80+, else auto), shuffle (integer instructions, fragments "
                        "gathered by shuffles), limbs (exact f16/tf32 mma on 8-bit payload limbs), auto "
                        "(int8 from sm_80, else limbs in functions with 16 or more mma)")
    p.add_argument("--report", action="store_true",
                   help="list every floating-point instruction left unsanitized")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")


def _fold(text: str) -> tuple[str, str]:
    name, sep, form = (t.strip() for t in text.partition("="))
    if not sep or name not in FOLD_FORMS or form not in FOLD_FORMS[name]:
        forms = "; ".join(f"{n}={'|'.join(f)}" for n, f in FOLD_FORMS.items())
        raise argparse.ArgumentTypeError(f"expected NAME=FORM with {forms}, not {text!r}")
    return name, form


def _write_stdout(text: str) -> None:
    """The text as the bytes it came from (bytes that were not UTF-8 in the input pass through)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (a test's StringIO)
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    buffer.write(encode(text))
    buffer.flush()


def run(args: argparse.Namespace) -> int:
    text = read_source(args.input)
    result = sanitize_text(text, args.input, homomorphic_casts=args.homomorphic_casts,
                           atomics=args.atomics, strict=args.strict,
                           sign_xor_as_neg=args.sign_xor_as_neg, mma=args.mma, folds=tuple(args.fold),
                           source_hints=args.source_hints == "on", source_root=args.source_root)
    to_stdout = args.output in (None, "-")
    if not to_stdout:
        atomic_write(args.output, result.text)
    if args.json:
        obj = result.report.to_json()
        obj["output"] = None if to_stdout else args.output
        if to_stdout:
            obj["text"] = result.text
        print(json.dumps(obj))
        return 0
    if to_stdout:
        _write_stdout(result.text)
    if args.report:
        print(result.report.render(), file=sys.stderr if to_stdout else sys.stdout)
    return 0
