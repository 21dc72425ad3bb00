# Every target creates .venv and installs what it needs: nothing is assumed on the machine
# but python3 (3.11 or newer) with venv.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

## Build the sample site's sitemaps and show what was written.
demo: $(STAMP)
	$(BIN)/sitemapgen build sample_site --config sample_site.toml
	@echo "--- sample_site/sitemap.xml"
	@cat sample_site/sitemap.xml
	@echo "--- sample_site/sitemap-1.xml.gz (first lines, uncompressed)"
	@$(BIN)/python -c "import gzip,sys; sys.stdout.write(''.join(gzip.open('sample_site/sitemap-1.xml.gz','rt',encoding='utf-8').readlines()[:12]))"

## ruff, mypy --strict and the test suite.
test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# A fresh --basetemp outside the work tree (test docroots must not sit inside this git
# repo), removed afterwards. Explicit, because pytest 9.2's cleanup of numbered tmp dirs
# leaks a scandir iterator, which warnings-as-errors turns into a failed run.
unit: $(STAMP)
	@tmp=$$(mktemp -d); $(BIN)/python -m pytest -q --basetemp=$$tmp/t; rc=$$?; rm -rf $$tmp; exit $$rc

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	rm -f sample_site/sitemap.xml sample_site/sitemap-*.xml sample_site/sitemap-*.xml.gz
