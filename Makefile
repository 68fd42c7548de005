PY ?= python3

.PHONY: test test-slow test-all bench lint lean install

install:
	$(PY) -m pip install -e '.[test]'

# the default tier: every area, corpus samples (under 10 minutes on 2 cores)
test:
	$(PY) -m pytest -q -m "not slow"

# the slow tier: whole-corpus sweeps (ptxas over every sanitized file, every export, the large fuzz run)
test-slow:
	$(PY) -m pytest -q -m slow

test-all: test test-slow

bench:
	$(PY) -m ptxkit bench

lint:
	$(PY) -m ruff check ptxkit tests
	$(PY) -m mypy

lean:
	@if command -v lake >/dev/null 2>&1; then cd lean && lake build; \
	else echo "lake not found: Lean 4 is not installed here, skipping 'lake build' (see lean/README.md)"; fi
