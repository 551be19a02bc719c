# plgraph — `make help` lists the targets.  The two set-up commands are `make demo` and `make test`.
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# pytest workers for `make test` (pytest-xdist; files are kept whole on one worker)
TEST_WORKERS ?= 2

.DEFAULT_GOAL := help
.PHONY: help install demo test test-browser docs figures bench bench-cascade bench-dist parser-model release-model check-full check-evalb screenshots notebooks lab clean

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-11s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) tools/install_torch.py
	$(PY) -m pip install --quiet -e '.[notebooks,test,dist,docs,neural]'
	@touch $(STAMP)

install: $(STAMP) ## create .venv (if needed) and install plgraph with its notebook, test, dist (Dask), docs and neural (PyTorch CPU) extras

demo: $(STAMP) ## print the coverage tables (figures/), then parse four raw sentences with traces with the released model (figures/demo_parse.svg)
	$(PY) -m plgraph coverage --json figures/coverage.json --figures figures
	$(PY) -m plgraph demo --svg figures/demo_parse.svg

test: $(STAMP) ## run the whole suite, notebooks included (quick mode)
	PLGRAPH_QUICK=1 PLGRAPH_WARMUP=1 MPLBACKEND=Agg $(PY) -m pytest tests --nbmake notebooks --nbmake-timeout=900 -q -n $(TEST_WORKERS) --dist loadfile

test-browser: $(STAMP) ## drive the arc explorer in headless Chromium (installs Debian's chromium if missing)
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	$(PY) -m pip install --quiet -e '.[notebooks,test,dist,ui]'
	PLGRAPH_QUICK=1 $(PY) -m pytest tests/test_browser.py -m browser -q -p no:cacheprovider

docs: $(STAMP) ## build the documentation site into site/ (warnings are errors)
	@$(PY) -c 'import mkdocs, material, mkdocstrings_handlers.python, mkdocs_jupyter' 2>/dev/null || $(PY) -m pip install --quiet -e '.[notebooks,test,dist,docs]'
	PLGRAPH_QUICK=1 MPLBACKEND=module://matplotlib_inline.backend_inline NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

figures: $(STAMP) ## regenerate figures/ from the models there are (says which are missing; TRAIN=1 trains them, ~20-36 min each)
	MPLBACKEND=Agg $(PY) -m plgraph figures --out figures $(if $(TRAIN),--train-missing)

bench: $(STAMP) ## run the benchmarks (current figures and their commands: docs/results.md)
	$(PY) bench/bench_coverage.py
	$(PY) bench/bench_rules.py
	$(PY) bench/bench_viz.py
	$(PY) bench/bench_pruners.py
	$(PY) bench/bench_parser.py
	$(PY) bench/bench_pass2.py
	$(PY) bench/bench_eval.py

parser-model: $(STAMP) ## train the default graph parser (coarse models, passes 2 and 3, POS tagger) into runs/parser, replacing a finished one only once complete (~33 min, 2 cores)
	$(PY) -m plgraph parser train --model-dir runs/parser --overwrite

release-model: $(STAMP) ## retrain both scorers into runs/release (~75 min, 2 cores), pack them into plgraph/models/parser, record checksums and scores, rewrite docs/model.md
	$(PY) -m plgraph parser train --model-dir runs/release --overwrite
	$(PY) -m plgraph parser train --scorer neural --model-dir runs/release --overwrite
	$(PY) -m plgraph release --model-dir runs/release

PARSER_MODEL ?= runs/parser
bench-cascade: $(STAMP) ## the whole parsing cascade of a trained model (PARSER_MODEL=M, default runs/parser)
	$(PY) bench/bench_cascade.py --model-dir $(PARSER_MODEL)

bench-dist: $(STAMP) ## Dask: parse / dep parse / training with 1 and 2 workers beside the serial runs (PARSER_MODEL=M)
	$(PY) bench/bench_dist.py --model-dir $(PARSER_MODEL)

check-full: $(STAMP) ## slow full-corpus checks (set PLGRAPH_PTB=DIR to include a full LDC treebank)
	MPLBACKEND=Agg $(PY) -m pytest tests -m slow -q

check-evalb: $(STAMP) ## plgraph's evalb against the C EVALB on ~30,000 fuzzed pairs (compiled into a temporary folder)
	PLGRAPH_EVALB_EXAMPLES=300 $(PY) -m pytest tests/test_eval_evalb.py -q -p no:cacheprovider

screenshots: $(STAMP) ## Run All of notebooks 01 04 05 07 in JupyterLab in headless Chromium; PNGs to /tmp/plgraph-screens
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)
	$(PY) -m pip install --quiet -e '.[notebooks,test,dist,ui]'
	$(PY) tools/screenshots/capture.py --out /tmp/plgraph-screens --tall 01 04 05 07

notebooks: $(STAMP) ## run every notebook in full mode (outputs are not saved)
	$(PY) -m pytest --nbmake notebooks --nbmake-timeout=7200 -q

lab: $(STAMP) ## start JupyterLab on 127.0.0.1 (adds --allow-root when run as root)
	$(VENV)/bin/jupyter lab --ip=127.0.0.1 --no-browser $(if $(filter 0,$(shell id -u)),--allow-root)

clean: ## remove build products, test caches and numba's compiled kernels
	rm -rf build *.egg-info .pytest_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -path ./$(VENV) -prune -o \( -name '*.nbi' -o -name '*.nbc' \) -type f -exec rm -f {} +

.PHONY: bench-lm tune-plre
bench-lm: $(STAMP) ## language models vs KenLM (builds KenLM from the PyPI sdist under $PLGRAPH_CACHE/kenlm, default ~/.cache/plgraph/kenlm)
	$(PY) bench/bench_lm.py --build-kenlm

tune-plre: $(STAMP) ## re-tune PLRE's defaults on validation data (appends to bench/tune_plre.csv)
	$(PY) bench/tune_plre.py

.PHONY: dep-models dep-basque bench-dep
FIND_CORPUS = $(shell $(PY) -c "from plgraph.data import find_corpus; print(find_corpus('$(1)'))" 2>/dev/null)
NEED_CORPUS = @test -n "$(call FIND_CORPUS,$(1))" || $(PY) -c "from plgraph.data import find_corpus; find_corpus('$(1)')"
DEP_EWT = $(call FIND_CORPUS,ud-english-ewt)
dep-models: $(STAMP) ## train the EWT dependency parsers with the defaults (runs/dep-ewt-1, runs/dep-ewt-2) and score test
	$(call NEED_CORPUS,ud-english-ewt)
	for o in 1 2; do $(PY) -m plgraph dep train --train $(DEP_EWT)/en_ewt-ud-train.conllu --dev $(DEP_EWT)/en_ewt-ud-dev.conllu \
		--model runs/dep-ewt-$$o --order $$o || exit 1; done
	for o in 1 2; do $(PY) -m plgraph dep parse --model runs/dep-ewt-$$o $(DEP_EWT)/en_ewt-ud-test.conllu --out runs/dep-ewt-$$o/test.conllu && \
		$(PY) -m plgraph dep eval $(DEP_EWT)/en_ewt-ud-test.conllu runs/dep-ewt-$$o/test.conllu || exit 1; done

DEP_EUS = $(call FIND_CORPUS,conll2007)
DEP_BDT = $(call FIND_CORPUS,ud-basque-bdt-r1.4)
dep-basque: $(STAMP) ## Basque: NLTK's CoNLL 2007 eus (last 10% of train as dev) and UD Basque-BDT r1.4, orders 1 and 2, test scores
	$(call NEED_CORPUS,conll2007)
	$(call NEED_CORPUS,ud-basque-bdt-r1.4)
	for o in 1 2; do \
		$(PY) -m plgraph dep train --train $(DEP_EUS)/eus.train --holdout 0.1 --model runs/dep-eus-$$o --order $$o && \
		$(PY) -m plgraph dep parse --model runs/dep-eus-$$o $(DEP_EUS)/eus.test --out runs/dep-eus-$$o/test.conllu && \
		$(PY) -m plgraph dep eval $(DEP_EUS)/eus.test runs/dep-eus-$$o/test.conllu && \
		$(PY) -m plgraph dep train --train $(DEP_BDT)/eu-ud-train.conllu --dev $(DEP_BDT)/eu-ud-dev.conllu --model runs/dep-bdt-$$o --order $$o && \
		$(PY) -m plgraph dep parse --model runs/dep-bdt-$$o $(DEP_BDT)/eu-ud-test.conllu --out runs/dep-bdt-$$o/test.conllu && \
		$(PY) -m plgraph dep eval $(DEP_BDT)/eu-ud-test.conllu runs/dep-bdt-$$o/test.conllu || exit 1; done

bench-dep: $(STAMP) ## dependency parser speed targets (bench/bench_dep.py; uses the models of `make dep-models`)
	$(PY) bench/bench_dep.py --model1 runs/dep-ewt-1 --model2 runs/dep-ewt-2
