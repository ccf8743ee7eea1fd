# agstate lab — `make lab` opens the lab, `make test` runs every test.
# Both create the virtual environment in .venv the first time.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
# JupyterLab refuses to run as root without this flag (containers, CI).
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

.PHONY: lab test grade learner check-learner clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit("agstate lab needs Python 3.11 or newer" if sys.version_info < (3, 11) else 0)'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
	@touch $(STAMP)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks $(ROOT_FLAG)

test: $(STAMP)
	$(PY) -m pytest -n auto

grade: $(STAMP)
	$(VENV)/bin/agstate-grade .

learner: $(STAMP)
	$(PY) -m grader.release

check-learner: $(STAMP)
	$(PY) -m grader.release --check

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
