# The README's two commands: `make demo` and `make test`. Both bootstrap .venv.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PORT ?= 8000
# Mozilla's ical.js (tests/js), one of the three consumers the feed tests expand with.
JS_STAMP := tests/js/node_modules/.installed-stamp

.PHONY: demo test docs lint types bench bench-enrolments bench-history bench-feeds bench-admin bench-people soak ci clean notebooks messages compilemessages

# Reinstalled when the version changes too: the editable install's metadata carries it.
$(STAMP): pyproject.toml revel_recurring/__init__.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,notebooks]"
	touch $(STAMP)

# Reinstalled when node_modules is missing or the lock file is newer than the stamp.
$(JS_STAMP): tests/js/package.json tests/js/package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
		echo "make test: npm is missing. The feed tests run Mozilla's ical.js through node:" >&2; \
		echo "install node and npm (apt-get install nodejs npm; .ci/run does it)." >&2; \
		exit 1; }
	npm ci --prefix tests/js --no-audit --no-fund
	touch $(JS_STAMP)

# `PORT=8001 make demo` (or `make demo PORT=8001`) serves elsewhere than 127.0.0.1:8000.
demo: $(STAMP)
	NOSERVE=$(NOSERVE) PORT=$(PORT) $(PY) scripts/demo.py

# The SQLite pass measures line coverage of revel_recurring, with the floor of pyproject's
# [tool.coverage.report] (docs/development.md, "Coverage").
test: $(STAMP) $(JS_STAMP)
	$(PY) scripts/run_tests.py --coverage $(ARGS)

# The documentation site into docs/_build/html. Every page is read afresh (-E), and
# any warning fails the build (-W, all of them reported: --keep-going): a broken
# link to a page or heading, or a setting or check id the code does not define
# (-n, nitpicky).
docs: $(STAMP)
	$(VENV)/bin/sphinx-build -b html -E -n -W --keep-going -q \
		-d docs/_build/doctrees docs docs/_build/html
	@echo "docs: docs/_build/html/index.html"

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

# Generation (ARGS for bench/generation.py), then the daily pass with 20,000 enrolments
# beside the same pass without (ENROLMENT_ARGS for bench/enrolments.py), then the
# series' history: the pass with records on and off, a 10,000-row record written and
# read (HISTORY_ARGS for bench/history.py).
bench: $(STAMP)
	$(PY) bench/generation.py $(ARGS)
	$(PY) bench/enrolments.py $(ENROLMENT_ARGS)
	$(PY) bench/history.py $(HISTORY_ARGS)

# The steady-state pass over 10,000 series with and without 20,000 enrolments, alone;
# ARGS="--series 1000 --enrolments 2000" for less.
bench-enrolments: $(STAMP)
	$(PY) bench/enrolments.py $(ARGS)

# The series' history alone: the daily pass at 10,000 series with records on and off,
# a 10,000-row cancel-stale's record written and read page by page;
# ARGS="--series 1000 --dates 2000" for less.
bench-history: $(STAMP)
	$(PY) bench/history.py $(ARGS)

# The open organisation feed at 50, 500 and 10,000 series; ARGS="--sizes 50,500" for less.
bench-feeds: $(STAMP)
	$(PY) bench/feeds.py $(ARGS)

# The series admin at 500 and 10,000 series; ARGS="--sizes 300 --repeat 1" for less.
bench-admin: $(STAMP)
	$(PY) bench/admin.py $(ARGS)

# People's messages: a cancel-stale over 1,000 booked dates with 10,000 people told;
# ARGS="--series 1 --dates 50" for less.
bench-people: $(STAMP)
	$(PY) bench/people.py $(ARGS)

soak: $(STAMP)
	$(PY) bench/soak.py $(ARGS)

# The shipped translations (revel_recurring/locale/): `make messages` brings every catalogue
# up to date with the code (new strings arrive empty, changed ones fuzzy: fill them in) and
# compiles them; `make compilemessages` only compiles. tests/default/languages/test_catalogues.py runs the same
# makemessages on a copy and fails on a string left out, untranslated or fuzzy, or a stale .mo.
# Needs GNU gettext (apt-get install gettext; .ci/run does it).
LANGUAGES := de fr es it nl
MAKEMESSAGES_OPTIONS := --add-location=file --no-obsolete
DJANGO_IN_APP := cd revel_recurring && env -u DJANGO_SETTINGS_MODULE $(abspath $(PY)) -m django

messages: $(STAMP)
	$(DJANGO_IN_APP) makemessages $(MAKEMESSAGES_OPTIONS) $(addprefix -l ,$(LANGUAGES))
	$(DJANGO_IN_APP) compilemessages

compilemessages: $(STAMP)
	$(DJANGO_IN_APP) compilemessages

ci:
	bash .ci/run

clean:
	rm -rf $(VENV) .tox build dist *.egg-info example_project/db.sqlite3 docs/_build
