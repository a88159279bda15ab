# The two README commands: `make run` and `make test`. Both build .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
EXAMPLE := examples/workspace

.PHONY: run test lint install install-test browser

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .

install-test: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'

run: install
	$(BIN)/memory validate --workspace $(EXAMPLE)
	$(BIN)/memory maintain --workspace $(EXAMPLE)
	$(BIN)/memory search --workspace $(EXAMPLE) --k 3 "what is Sam allergic to"
	@echo
	@echo 'Next: put `memory` on your PATH:  export PATH="$(abspath $(BIN)):$$PATH"'
	@echo 'An MCP host (Claude Desktop, Cursor, ...) starts it with this config:'
	@echo '  {"mcpServers": {"memory": {"command": "$(abspath $(BIN))/memory", "args": ["mcp", "--workspace", "$(abspath $(EXAMPLE))"]}}}'
	@echo 'Now serving the example workspace (Ctrl-C stops it):'
	$(BIN)/memory serve --workspace $(EXAMPLE)

# The web tab's end-to-end test drives Debian's Chromium; installed here when
# this is a root shell with apt-get, else that test skips (CI requires it).
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
		&& echo 'installing chromium for the browser test' \
		&& apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
		|| echo 'no chromium: the browser test will skip' >&2

test: install-test browser
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q; status=$$?; \
	if [ $$status -eq 5 ]; then echo 'pytest collected no tests' >&2; exit 1; fi; exit $$status
