"""FPSan ring arithmetic and helpers."""
