"""One module per CLI verb (see ptxkit/cli.py)."""
