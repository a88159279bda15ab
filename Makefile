# The two README commands: `make run` and `make test`. Both build .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
EXAMPLE := examples/workspace

.PHONY: run test lint install install-test

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .

install-test: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'

run: install
	$(BIN)/memory validate --workspace $(EXAMPLE)
	$(BIN)/memory stats --workspace $(EXAMPLE)
	$(BIN)/memory maintain --workspace $(EXAMPLE)
	$(BIN)/memory search --workspace $(EXAMPLE) --k 3 "what is Sam allergic to"

test: install-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q; status=$$?; \
	if [ $$status -eq 5 ]; then echo 'pytest collected no tests' >&2; exit 1; fi; exit $$status
