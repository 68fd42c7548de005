PY ?= python3

.PHONY: test bench lint lean install

install:
	$(PY) -m pip install -e '.[test]'

test:
	$(PY) -m pytest -q

bench:
	$(PY) -m ptxkit bench

lint:
	$(PY) -m ruff check ptxkit tests
	$(PY) -m mypy

lean:
	@if command -v lake >/dev/null 2>&1; then cd lean && lake build; \
	else echo "lake not found: Lean 4 is not installed here, skipping 'lake build' (see lean/README.md)"; fi
