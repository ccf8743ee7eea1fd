"""The tests' helpers: everything a test imports that is not a test, a fixture or a corpus.

pytest puts ``tests/`` on ``sys.path`` (``pythonpath`` in pyproject.toml), so a test imports
``from support.paths import ROOT``; ``conftest.py`` holds only fixtures and pytest's hooks, and no test
imports from it. A benchmark imports them the same way once ``benchmarks/bootstrap.py`` has put
``tests/`` on its path. The corpora the tests grade are beside this package: ``tests/mutants/`` and
``tests/hostile/``.

- ``paths``: where this checkout's pieces are: ``ROOT``, ``SOLUTIONS``, ``REFERENCE`` (the reference
  package), ``LEARNER`` (the stubs);
- ``cli``: ``run_cli``, ``agstate-grade`` in a fresh interpreter, as a learner runs it;
- ``submissions``: a submission built from a package (the reference by default), edited text by text;
- ``corpus``: ``Mutant`` and ``Corpus``, one part's mutation corpus (``tests/mutants/<part>_mutants.py``)
  with its module and task ids from the catalog, and ``corpora()``, every part's;
- ``folders``: ``folder_in_tmp``, a folder under ``/tmp`` other accounts can reach, removed afterwards;
- ``private_clone``: the lab as another account checked it out, in a 0700 folder with its own venv;
- ``lab_server``: a throwaway ``jupyter lab`` on loopback, and ``free_port``;
- ``browser``: headless Chromium (Debian's) driven by Playwright on a notebook;
- ``hub_server``: JupyterHub as root on a course's own configuration, its accounts and an admin's checkout;
- ``service_in_thread``: the grading service in a thread of the test's process (or a process of its own);
- ``postgres_server``: a throwaway PostgreSQL server, and its ``postgres_url`` fixture;
- ``event_stores``: part C's reference event stores, loaded from ``solutions/``, and their openers;
- ``kit_fragments``: every piece of code a kit ships that could be pasted into a stub;
- ``snapshot_reports``: not imported by a test: every corpus graded by a given grader, to compare two
  versions (``.venv/bin/python tests/support/snapshot_reports.py --help``);
- ``budget``: not imported but by its own test: ``make test`` hands it pytest's output, and it fails a
  run past 30 minutes or with a dear test it does not name (``python tests/support/budget.py LOG``).
"""
