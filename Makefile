# Developer shortcuts. Run `make install` once (creates .venv from requirements/dev.lock), then
# fmt, lint, type, test.
# `make check` is exactly what CI runs: .ci/run (fresh virtualenv, ruff, mypy, pytest).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install fmt lint type test check

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
	$(BIN)/python -m pytest

check:
	bash .ci/run
