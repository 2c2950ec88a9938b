# The README's two commands: `make demo` and `make test`. Both bootstrap .venv.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test lint types bench bench-feeds soak ci clean notebooks

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,notebooks]"
	touch $(STAMP)

demo: $(STAMP)
	NOSERVE=$(NOSERVE) $(PY) scripts/demo.py

test: $(STAMP)
	$(PY) scripts/run_tests.py $(ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

types: $(STAMP)
	$(VENV)/bin/mypy

# Jupyter on notebooks/; each notebook sets up the example project on its own database.
# Jupyter refuses to run as root unless told (the development machines log in as root).
notebooks: $(STAMP)
	$(VENV)/bin/jupyter notebook --ServerApp.root_dir=notebooks \
		$(if $(filter 0,$(shell id -u)),--allow-root)

bench: $(STAMP)
	$(PY) bench/generation.py

# The open organisation feed at 50, 500 and 10,000 series; ARGS="--sizes 50,500" for less.
bench-feeds: $(STAMP)
	$(PY) bench/feeds.py $(ARGS)

soak: $(STAMP)
	$(PY) bench/soak.py $(ARGS)

ci:
	bash .ci/run

clean:
	rm -rf $(VENV) .tox build dist *.egg-info example_project/db.sqlite3
