"""Exporters: DOT, Lean 4, SMT-LIB 2."""
