# plgraph — `make help` lists the targets.  The two set-up commands are `make demo` and `make test`.
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.DEFAULT_GOAL := help
.PHONY: help install demo test test-browser figures bench check-full notebooks lab clean

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-11s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[notebooks,test]'
	@touch $(STAMP)

install: $(STAMP) ## create .venv (if needed) and install plgraph with its notebook and test extras

demo: $(STAMP) ## read the PTB sample, convert and classify every tree, print the coverage tables, write figures/
	$(PY) -m plgraph coverage --json figures/coverage.json --figures figures

test: $(STAMP) ## run the whole suite, notebooks included (quick mode)
	PLGRAPH_QUICK=1 MPLBACKEND=Agg $(PY) -m pytest tests --nbmake notebooks --nbmake-timeout=900 -q

test-browser: $(STAMP) ## drive the arc explorer in headless Chromium (installs Debian's chromium if missing)
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	$(PY) -m pip install --quiet -e '.[notebooks,test,ui]'
	PLGRAPH_QUICK=1 $(PY) -m pytest tests/test_browser.py -m browser -q -p no:cacheprovider

figures: $(STAMP) ## regenerate everything in figures/
	MPLBACKEND=Agg $(PY) -m plgraph figures --out figures

bench: $(STAMP) ## run the benchmarks (results are recorded in bench/RESULTS.md)
	$(PY) bench/bench_coverage.py
	$(PY) bench/bench_rules.py
	$(PY) bench/bench_viz.py

check-full: $(STAMP) ## slow full-corpus checks (set PLGRAPH_PTB=DIR to include a full LDC treebank)
	MPLBACKEND=Agg $(PY) -m pytest tests -m slow -q

notebooks: $(STAMP) ## run every notebook in full mode (outputs are not saved)
	$(PY) -m pytest --nbmake notebooks --nbmake-timeout=7200 -q

lab: $(STAMP) ## start JupyterLab on 127.0.0.1
	$(VENV)/bin/jupyter lab --ip=127.0.0.1 --no-browser

clean: ## remove build products, test caches and numba's compiled kernels
	rm -rf build *.egg-info .pytest_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -path ./$(VENV) -prune -o \( -name '*.nbi' -o -name '*.nbc' \) -type f -exec rm -f {} +
