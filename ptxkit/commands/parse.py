"""`ptxkit parse FILE… [--emit] [--json]` (docs/cli.md): parse; exit 0 when every file parses,
2 when any has errors (the errors of every file are reported, ``FILE:LINE:COL: error: …``, up to
the per-file error limit; a file that cannot be read at all is ``ptxkit parse: error: FILE: …``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ptxkit import ir
from ptxkit.errors import PtxkitError, UsageError, printable
from ptxkit.ptx.emit import emit
from ptxkit.ptx.parser import encode, parse_file

HELP = "parse PTX files (report every syntax error; --emit re-emits the text)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="PTX files")
    p.add_argument("--emit", action="store_true",
                   help="write the re-emitted text of the (single) file to stdout")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")


def _summary(m: ir.Module) -> dict[str, Any]:
    fns = m.functions()
    return {
        "version": m.version,
        "target": m.target,
        "address_size": m.address_size,
        "functions": [{"name": f.name, "kind": f.kind, "defined": f.body is not None,
                       "params": len(f.params),
                       "instructions": sum(1 for _ in f.instructions())} for f in fns],
        "globals": len(m.globals()),
        "instructions": sum(sum(1 for _ in f.instructions()) for f in fns),
        "lines": m.source.count("\n") + (0 if m.source.endswith("\n") or not m.source else 1),
    }


def _render(e: PtxkitError) -> str:
    if isinstance(e, UsageError):  # no position in the file: the verb speaks
        return "\n".join(printable(f"ptxkit parse: error: {d.message}") for d in e.diagnostics)
    return e.render()


def run(args: argparse.Namespace) -> int:
    if args.emit and len(args.files) != 1:
        raise UsageError("--emit takes exactly one FILE")
    results: list[dict[str, Any]] = []
    failed: list[PtxkitError] = []
    module = None
    for path in args.files:
        try:
            module = parse_file(path)
        except PtxkitError as e:
            failed.append(e)
            results.append({"file": path, "ok": False, "truncated": e.truncated, "errors": [
                {"file": d.file, "line": d.line or None, "col": d.col or None, "message": d.message}
                for d in e.diagnostics]})
            continue
        results.append({"file": path, "ok": True, **_summary(module)})
    for err in failed:
        print(_render(err), file=sys.stderr)
    if args.json:
        json.dump({"ok": not failed, "files": results}, sys.stdout, indent=1)
        print()
    elif args.emit:
        if not failed and module is not None:
            sys.stdout.flush()
            sys.stdout.buffer.write(encode(emit(module)))
            sys.stdout.buffer.flush()
    else:
        for r in results:
            if r["ok"]:
                print(f"{r['file']}: ok ({len(r['functions'])} functions, {r['instructions']} instructions)")
    if failed:
        n = sum(len(e.diagnostics) for e in failed)
        more = "+" if any(e.truncated for e in failed) else ""
        print(f"ptxkit parse: {n}{more} error{'s' if n != 1 or more else ''} in {len(failed)} file"
              f"{'s' if len(failed) != 1 else ''}", file=sys.stderr)
        return 2
    return 0
