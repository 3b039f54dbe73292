# deepnb's two everyday commands:
#   make lab    JupyterLab on the demo notebooks (offline, no API key)
#   make test   the whole test suite (installs what it needs first)

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
ROOT_OK := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

.PHONY: lab test lint bench chromium constraints clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-lab: pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/pip install --quiet -c constraints.txt -e ".[lab]"
	touch $@

$(VENV)/.installed-test: pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/pip install --quiet -c constraints.txt -e ".[lab,test]"
	touch $@

lab: $(VENV)/.installed-lab
	$(BIN)/jupyter lab $(ROOT_OK) notebooks/quickstart.ipynb

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/mypy

test: $(VENV)/.installed-test chromium lint
	$(BIN)/python -m pytest

bench: $(VENV)/.installed-test
	$(BIN)/python bench/overhead.py
	$(BIN)/python bench/subagents.py
	$(BIN)/python bench/files.py
	$(BIN)/python bench/longrun.py

# The newest versions pyproject.toml allows, frozen into constraints.txt (a throwaway virtualenv).
constraints:
	rm -rf .constraints-venv && $(PYTHON) -m venv .constraints-venv
	.constraints-venv/bin/pip install --quiet ".[lab,test,openai,anthropic]"
	{ sed -n '1,3p' constraints.txt; .constraints-venv/bin/pip freeze | grep -v '^deepnb'; } > constraints.new
	mv constraints.new constraints.txt && rm -rf .constraints-venv

clean:
	rm -rf $(VENV) build dist .pytest_cache
