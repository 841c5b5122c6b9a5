# Developer shortcuts. Run `make install` once (creates .venv from requirements/dev.lock), then
# fmt, lint, type, test (or test-fast while working).
# `make check` is exactly what CI runs: .ci/run (fresh virtualenv, ruff, mypy, pytest).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Test processes run at once (pytest-xdist's -n): one per CPU core. The suite mostly waits on
# the bot processes it starts, so even two cores gain from it.
WORKERS ?= auto

.PHONY: install fmt lint type test test-fast check

install:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	bash requirements/install.sh $(BIN)/python requirements/dev.lock
	$(BIN)/python -m pip install --no-deps --no-build-isolation -e .

fmt:
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

type:
	$(BIN)/mypy

test:
	$(BIN)/python -m pytest -n $(WORKERS)

# Everything but the long tests (several bot processes, crash points, long end-to-end runs);
# tests/conftest.py says which tests are long (docs/contributing.md, "The fast lane").
test-fast:
	$(BIN)/python -m pytest -n $(WORKERS) -m "not long"

check:
	bash .ci/run
