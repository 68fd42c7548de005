"""`ptxkit parse FILE… [--emit] [--json]` (docs/cli.md): parse; exit 0 when every file parses,
2 when any has errors (all errors of every file are reported, ``FILE:LINE:COL: error: …``)."""

from __future__ import annotations

import argparse
import json
import sys

from ptxkit.errors import PtxkitError, UsageError

HELP = "parse PTX files (report every syntax error; --emit re-emits the text)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="PTX files")
    p.add_argument("--emit", action="store_true",
                   help="write the re-emitted text of the (single) file to stdout")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")


def _summary(m) -> dict:
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


def run(args: argparse.Namespace) -> int:
    from ptxkit.ptx.emit import emit
    from ptxkit.ptx.parser import encode, parse_file

    if args.emit and len(args.files) != 1:
        raise UsageError("--emit takes exactly one FILE")
    results = []
    failed: list[PtxkitError] = []
    module = None
    for path in args.files:
        try:
            module = parse_file(path)
        except PtxkitError as e:
            failed.append(e)
            results.append({"file": path, "ok": False, "errors": [
                {"file": d.file, "line": d.line, "col": d.col, "message": d.message}
                for d in e.diagnostics]})
            continue
        results.append({"file": path, "ok": True, **_summary(module)})
    for e in failed:
        print(e.render(), file=sys.stderr)
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
        print(f"ptxkit parse: {n} error{'s' if n != 1 else ''} in {len(failed)} file"
              f"{'s' if len(failed) != 1 else ''}", file=sys.stderr)
        return 2
    return 0
