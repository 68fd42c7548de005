"""ptxkit: PTX-level FPSan, an integer-exact PTX simulator, and a PTX memory-model explorer."""

__version__ = "0.1.0"
