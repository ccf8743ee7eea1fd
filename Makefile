# agstate lab — `make lab` opens the lab, `make test` runs every test.
# Both create the virtual environment in .venv the first time.

# bash: the test target keeps pytest's status through a pipe (pipefail).
SHELL := /bin/bash

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
# JupyterLab refuses to run as root without this flag (containers, CI).
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

.PHONY: lab test test-fast test-parts test-hostile lint docs grade learner check-learner kit clean browser sandbox kernel \
	setup students-env grading-service hub-proxy course-kit translations firewall

$(STAMP): pyproject.toml
	@# A .venv made by another account on an interpreter in its private home (root's pyenv) cannot run for this one.
	@if { [ -e $(PY) ] || [ -L $(PY) ]; } && ! $(PY) -c '' 2>/dev/null; then \
		echo "$(VENV) was made by another account with $$(readlink $(PY) || echo its Python), which $$(id -un) cannot run" \
		     "(\"bad interpreter: Permission denied\"). Make your own: make VENV=<a folder of yours> PYTHON=/usr/bin/python3 setup" \
		     "(docs/instructor/hub-course.md)" >&2; exit 1; fi
	@$(PYTHON) -c 'import sys; sys.exit("agstate lab needs Python 3.11 or newer" if sys.version_info < (3, 11) else 0)'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@# PYTHONWARNINGS reaches the build backend: its editable-install caution (notebooks/ is mapped into the
	@# package grader.learner_notebooks) is not the learner's business on a first run.
	PYTHONWARNINGS=ignore $(PY) -m pip install --quiet -e '.[test,hub,cluster]'
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
	@touch $(STAMP)

# The kernel reloads a learner module whose file changed (grader/notebook/kernel.py): cheap, so always run.
kernel: $(STAMP)
	@$(PY) -m grader.notebook.kernel

# The environment, the sandbox and the kernel, without opening the lab (an instructor's, a server's set-up).
setup: $(STAMP) sandbox kernel

# LAB_LANG=es (or zh_CN, ru): the notebooks of notebooks/$(LAB_LANG) and the grader's sentences in that language.
LAB_LANG ?=
lab: $(STAMP) sandbox kernel
	AGSTATE_LANG=$(LAB_LANG) $(VENV)/bin/jupyter lab --notebook-dir=notebooks/$(LAB_LANG) $(ROOT_FLAG)

# The slowest tests are listed at the end, and the run is held to its budget from those very lines (tests/support/budget.py):
# 30 minutes on CI's two cores, and every dear test named with why it is worth its time.
TEST_LOG := artifacts/test-run.log
test: $(STAMP) browser sandbox kernel hub-proxy firewall
	@mkdir -p $(dir $(TEST_LOG))
	set -o pipefail; $(PY) -m pytest -n auto --durations=25 2>&1 | tee $(TEST_LOG)
	$(PY) tests/support/budget.py $(TEST_LOG)

# The inner loop: the unit tier (tests/README.md): no learner process, no notebook, server, corpus or browser.
test-fast: $(STAMP)
	$(PY) -m pytest -n auto -m "unit and not part and not corpus and not slow"

# ruff and the import contracts between grader/'s rooms, as pyproject.toml configures them (tests/test_lint.py and
# tests/test_contracts.py run them in every test target too).
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

# The hostile corpus alone (as root: also as an ordinary user, from private checkouts).
test-hostile: $(STAMP) sandbox
	$(PY) -m pytest -n auto tests/test_hostile.py

# The unit and part tiers: everything the grader does on one machine, without corpora, notebooks or browsers.
test-parts: $(STAMP) sandbox kernel
	$(PY) -m pytest -n auto -m "not corpus and not slow"

# The browser test (tests/test_board_browser.py) drives Debian's Chromium through Playwright;
# Playwright's own browser download is never used.
browser:
	@test -x /usr/bin/chromium || { [ "$$(id -u)" = 0 ] && apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
		{ echo "the browser test needs Debian's chromium: sudo apt-get install -y chromium" >&2; exit 1; }

# nftables, for the test of hub-course.md's firewall rule (tests/test_grading_service.py, as root, in a network namespace
# of its own): Debian's package. As an ordinary account the test is skipped, and nothing is installed.
firewall:
	@[ "$$(id -u)" != 0 ] || command -v nft >/dev/null || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nftables >/dev/null; }

# JupyterHub's proxy for the hub course's test (tests/test_hub_course.py, as root): configurable-http-proxy from the
# npm registry, as tests/hub/package-lock.json pins it, in tests/hub/node_modules. Without npm the test says so.
HUB_PROXY := tests/hub/node_modules/.bin/configurable-http-proxy
hub-proxy: $(HUB_PROXY)
$(HUB_PROXY): tests/hub/package.json tests/hub/package-lock.json
	@command -v npm >/dev/null || { echo "note: the JupyterHub test needs node 20+ and npm, for configurable-http-proxy" >&2; exit 0; }
	npm ci --prefix tests/hub --no-audit --no-fund --silent
	@touch $@

# Every learner process runs in bubblewrap (Debian package bubblewrap); installed here when missing and root.
# Without it the lab still opens and check() still grades your own work, saying it ran unsandboxed.
sandbox:
	@command -v bwrap >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; } || \
		echo "note: the grader's sandbox needs bubblewrap: sudo apt-get install -y bubblewrap (Fedora: sudo dnf install bubblewrap)" >&2

# Exit status 1 (tasks not passing yet) is a learner's normal state, not make's error; 2 (the grader could not run) is.
grade: $(STAMP) sandbox
	@$(VENV)/bin/agstate-grade . || [ $$? -eq 1 ]

learner: $(STAMP)
	$(PY) -m grader.authoring.release

check-learner: $(STAMP)
	$(PY) -m grader.authoring.release --check

# The translations: the grader's sentences extracted from the code (babel.cfg) and merged into
# grader/locale/<lang>/LC_MESSAGES/agstate.po, each compiled to the .mo beside it (committed: kits read it without
# Babel); each master notebook's prose and comments merged into solutions/notebooks/i18n/<lang>/NN_name.po. A changed
# English sentence or cell turns fuzzy, its old translation kept. Then translate what they list, and make learner.
translations: $(STAMP)
	$(PY) -m grader.authoring.messages update
	$(PY) -m grader.authoring.translations update

# The documentation (docs/, Sphinx with MyST), offline, warnings as errors: docs/_build/html/index.html.
docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -b html -q docs docs/_build/html
	@echo "docs/_build/html/index.html"

# The learner's kit: the grader, the notebooks and the stubs, without solutions/ (docs/learner/getting-started.md).
kit: $(STAMP)
	@$(PY) -m grader.authoring.released_copies  # agstate/ and notebooks/ ship as they are: only as released
	@rm -rf build  # setuptools' staging folder: a module deleted since the last build would ship again
	$(PY) -m build --wheel --outdir dist .

# The course kit: the students' wheel for a graded course, with no grader in it but check(), which the course's
# grading service answers (grader/authoring/course_kit.py): dist/agstate_lab_course_kit-*.whl.
course-kit: $(STAMP)
	$(PY) -m grader.authoring.course_kit --outdir dist

# The students' environment on a shared server (JupyterHub's single-user servers run it), built on the system's
# Python so that every account can run it, with nbgrader's instructor tools switched off. It needs no .venv of this
# checkout, and refuses a checkout whose solutions/ another account can read (grader/authoring/private_checkout.py).
# KIT=course (a graded course, docs/instructor/hub-course.md): the course kit (make course-kit): notebooks, stubs and
# check(), which the course's grading service answers; no grader. KIT=self-paced: the learner's kit (this checkout
# as a wheel: the grader, the notebooks and the stubs, no solutions), for a course whose students may hold the grader.
# As root: sudo make students-env KIT=course PREFIX=/opt/agstate-students
PREFIX ?= /opt/agstate-students
KIT ?= self-paced
students-env:
	@test -x /usr/bin/python3 || { echo "students-env needs the system's python3 (3.11+): apt-get install python3-venv" >&2; exit 1; }
	@/usr/bin/python3 -m grader.authoring.private_checkout
	@rm -rf build  # setuptools' staging folder: a module deleted since the last build would ship again
	/usr/bin/python3 -m venv $(PREFIX)
	$(PREFIX)/bin/python -m pip install --quiet --upgrade pip
ifeq ($(KIT),course)
	@stage=$$(mktemp -d) && /usr/bin/python3 -m grader.authoring.course_kit --stage $$stage >/dev/null && \
		PYTHONWARNINGS=ignore $(PREFIX)/bin/python -m pip install --quiet "$$stage[hub]"; \
		status=$$?; rm -rf $$stage; exit $$status
else
	@/usr/bin/python3 -m grader.authoring.released_copies  # agstate/ and notebooks/ ship as they are: only as released
	PYTHONWARNINGS=ignore $(PREFIX)/bin/python -m pip install --quiet '.[hub]'
endif
	$(PREFIX)/bin/python -m grader.notebook.kernel --prefix $(PREFIX)
	$(PREFIX)/bin/jupyter labextension disable --level=sys_prefix @jupyter/nbgrader:formgrader \
		@jupyter/nbgrader:create-assignment @jupyter/nbgrader:course-list >/dev/null
	$(PREFIX)/bin/jupyter server extension disable --sys-prefix nbgrader.server_extensions.formgrader \
		nbgrader.server_extensions.course_list >/dev/null
	@/usr/bin/python3 -m grader.authoring.private_checkout --record $(PREFIX)
	chmod -R a+rX $(PREFIX)
	@echo "$(PREFIX): the students' environment; its single-user server: $(PREFIX)/bin/jupyterhub-singleuser"

# The grading service of a hub course (docs/instructor/hub-course.md), as root, for an account made before
# (useradd --system agstate-grading): its environment (the whole grader, on the system's Python) readable by that
# account only (root:SERVICE_USER, 0750: no student reads a model or runs agstate-grade); its practice secret, a
# file only it reads, made once; its folder (log, checks in progress), which the INSTRUCTORS group may read
# (agstate-course practice-log). The service refuses to start when any of them is within another account's reach.
SERVICE_USER ?= agstate-grading
SERVICE_PREFIX ?= /opt/agstate-grading
SERVICE_HOME ?= /var/lib/agstate-grading
SERVICE_SECRET ?= /etc/agstate-grading/practice-secret
INSTRUCTORS ?= agstate-instructors
grading-service:
	@test "$$(id -u)" = 0 || { echo "grading-service is an admin's: run it as root (sudo make grading-service)" >&2; exit 1; }
	@id -u $(SERVICE_USER) >/dev/null 2>&1 || { echo "no account $(SERVICE_USER): sudo useradd --system --no-create-home" \
		"--shell /usr/sbin/nologin $(SERVICE_USER)" >&2; exit 1; }
	@test -x /usr/bin/python3 || { echo "grading-service needs the system's python3 (3.11+): apt-get install python3-venv" >&2; exit 1; }
	@/usr/bin/python3 -m grader.authoring.private_checkout
	@rm -rf build  # setuptools' staging folder: a module deleted since the last build would ship again
	@/usr/bin/python3 -m grader.authoring.released_copies
	install -d -m 750 -o root -g $(SERVICE_USER) $(SERVICE_PREFIX)
	/usr/bin/python3 -m venv $(SERVICE_PREFIX)
	$(SERVICE_PREFIX)/bin/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS=ignore $(SERVICE_PREFIX)/bin/python -m pip install --quiet '.[hub,cluster]'  # cluster: --scheduler (Dask)
	@/usr/bin/python3 -m grader.authoring.private_checkout --record $(SERVICE_PREFIX)
	chown -R root:$(SERVICE_USER) $(SERVICE_PREFIX) && chmod -R u=rwX,g=rX,o= $(SERVICE_PREFIX)
	install -d -m 750 -o root -g $(SERVICE_USER) $(dir $(SERVICE_SECRET))
	@test -s $(SERVICE_SECRET) || (umask 077 && /usr/bin/python3 -c "import secrets; print(secrets.token_hex(32))" > $(SERVICE_SECRET))
	chown $(SERVICE_USER):$(SERVICE_USER) $(SERVICE_SECRET) && chmod 400 $(SERVICE_SECRET)
	@if getent group $(INSTRUCTORS) >/dev/null; then \
		install -d -m 2750 -o $(SERVICE_USER) -g $(INSTRUCTORS) $(SERVICE_HOME); \
	else echo "note: no group $(INSTRUCTORS): only root reads the service's log (sudo groupadd $(INSTRUCTORS))" >&2; \
		install -d -m 700 -o $(SERVICE_USER) -g $(SERVICE_USER) $(SERVICE_HOME); fi
	@echo "$(SERVICE_PREFIX): the grading service's environment ($(SERVICE_USER)'s only); secret $(SERVICE_SECRET); folder $(SERVICE_HOME)"

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis docs/_build build tests/hub/node_modules
