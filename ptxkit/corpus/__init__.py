"""Readers for the shared corpora (Triton FPSan pairs and vectors) and the GPU bit-identity check.

Not part of the core: used by tests, benchmarks and ``python -m ptxkit.corpus.gpucheck``."""
