"""The PTX front end: parser (Lark grammar + fast path), printer, instruction table.

Public API:
* ``ptxkit.ptx.parser.parse(text, filename) -> ir.Module`` / ``parse_file(path)`` — every error of
  the file is collected (one diagnostic per bad statement) and raised as one PtxkitError;
* ``ptxkit.ptx.emit.emit(module) -> str`` (applies ``module.edits``; identity when there are none)
  and ``format_statement(node) -> str`` (the canonical style for new nodes);
* ``ptxkit.ptx.isa``: ``info(opcode)``, ``defs(instr)``, ``uses(instr)``, ``data_type(instr)`` …;
* ``ptxkit.ptx.types``: fundamental types and their widths.

How parsing works: ``fast.py`` scans statements with precompiled regexes for the common shapes and
hands anything else, one statement at a time, to the Lark grammar (``ptxkit/grammar.lark`` via
``lark_parser.py``), which is the authority; ``build.py`` holds the IR-building helpers both use,
so they agree by construction, and tests/test_frontend_lark.py checks they do on the corpus.
"""
