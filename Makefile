# The few commands people type. `make demo` and `make test` work on a machine that has
# never seen the project: the first run creates .venv and installs everything.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_QUESTION ?= What did Franklin D. Roosevelt say about freedom of speech in 1941?

.PHONY: demo ask test test-fast lint bench install llamacpp clean

# Serves the workspace at once (the URL is printed) and, if the data dir is empty, prepares the
# sample archive in the background, its progress on the terminal and every page. Ctrl-C stops
# it with exit 0 (make itself then re-raises the interrupt: its own status is 130).
demo: $(VENV)/.installed
	$(BIN)/evidence-desk serve --sample sotu

# The same desk on the command line: one question, its answer, sources and receipt.
ask: $(VENV)/.installed
	$(BIN)/evidence-desk ingest --sample sotu
	$(BIN)/evidence-desk ask "$(DEMO_QUESTION)"

# trust/ is the publish-safety boundary: the suite must cover every line and branch of it.
test: $(VENV)/.installed
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/pytest --cov=evidence_desk.trust --cov-branch --cov-report=term-missing:skip-covered \
		--cov-fail-under=100

# The edit loop: no slow test, nothing that loads the embedding model, no browser, and property
# tests at a few examples each (the `fast` Hypothesis profile, tests/conftest.py); CI runs
# `make test`.
test-fast: $(VENV)/.installed
	$(BIN)/pytest -q -m "not slow and not torch and not browser" --hypothesis-profile=fast

lint: $(VENV)/.installed
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

bench: $(VENV)/.installed
	$(BIN)/python -m bench

install: $(VENV)/.installed

# A real OpenAI-compatible server for the real-server test and bench: llama.cpp's, through
# llama-cpp-python built from source (needs cmake and a C++ compiler; about 5 minutes the
# first time, seconds after), with the SmolLM2-135M-Instruct model. Without it, that test skips.
llamacpp:
	PYTHON=$(PYTHON) scripts/llamacpp-server

# torch is installed first and alone: `torch==2.13.0` is a CPU wheel here; letting another
# package pull torch would fetch a multi-GB CUDA build.
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev,providers]'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
