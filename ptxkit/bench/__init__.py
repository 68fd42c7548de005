"""Benchmarks (docs/performance.md): one module per area, each with ``run(repeats) -> list[dict]``."""
