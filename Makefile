# Two commands do all setup: `make run` starts the app on the demo workspace (in .venv-run, the
# base install only), `make test` runs the whole suite (in .venv, with the test extra) and prints
# the slowest tests: everything but the browser tests on two pytest-xdist workers (a test file
# stays on one worker), then the browser tests in one process, against one app server. `make test-fast` (under 2 minutes on 2 cores: one pytest-xdist worker per
# core, a test file stays on one worker) runs the core tests only:
# metrics, workspace, files, judging, evaluation, the command line. It leaves out three groups
# that `make test` runs: `app` (tests/app/, every page through Streamlit's AppTest), `e2e`
# (tests/e2e/, a real Chromium) and `slow` (core tests taking seconds: large imports and
# concurrent writers, seeded simulations, Spark and Dask clusters, the docs site build).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN_VENV := .venv-run
RUN_STAMP := $(RUN_VENV)/.installed

.PHONY: run test test-fast lint bench docs clean

# pytest caches its rewritten test modules as bytecode; with PYTHONDONTWRITEBYTECODE set it
# rewrites and compiles every module again on each run (collection: about 60 s instead of 10).
unexport PYTHONDONTWRITEBYTECODE

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

$(RUN_STAMP): pyproject.toml
	$(PYTHON) -m venv $(RUN_VENV)
	$(RUN_VENV)/bin/pip install --quiet --upgrade pip
	$(RUN_VENV)/bin/pip install --quiet -e .
	touch $(RUN_STAMP)

run: $(RUN_STAMP)
	mkdir -p workspace
	$(RUN_VENV)/bin/scorecard app --workspace workspace/scorecard.db

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports pyproject.toml importlinter-runtime.toml
	$(BIN)/pytest -m "not e2e" -n 2 --dist loadfile --durations=20
	$(BIN)/pytest -m e2e --durations=10

test-fast: $(STAMP)
	$(BIN)/pytest -m "not slow and not e2e and not app" -n auto --dist loadfile --durations=10

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports pyproject.toml importlinter-runtime.toml

bench: $(STAMP)
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/bench_metrics.py

docs: $(STAMP)
	$(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) $(RUN_VENV) build dist site
