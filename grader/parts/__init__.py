"""The parts of the lab: a part is a folder of the same shape; adding one is its folder and its name in
``grader.catalog.NAMES``.

``grader/parts/<name>/``:

- ``__init__.py``: the descriptor, ``PART``: its title, module, first
  notebook, tasks (points, notebooks) and the learner call each probe stands for;
- ``strategies.py``: the Hypothesis strategies its rules draw from;
- ``model.py``: what a correct answer does (grading side; it judges nothing);
- ``checks.py`` (and ``checks_<topic>.py`` beside it): the judging its rules
  share (grading side; raises ``Failure``);
- ``rules/``: one module per notebook that grades, named after it
  (``09_operations.ipynb`` -> ``rules/operations.py``), imported in notebook
  order by ``rules/__init__.py``: the order of a task's rules is the order the
  learner meets them;
- ``scenarios.py`` (and ``scenarios_<topic>.py`` beside it): the part's
  scenarios, run in the grading process (``@scenario``): graphs, fakes,
  ledgers, crashes, each call of the learner's code through the call server;
- ``probes/``: the learner's side, run in the learner's sandboxed process:
  the part's call-server operations, its pure folds of the learner's own
  calls and the turns of its forced races; they import nothing of the
  grading side (``tests/test_contracts.py``);
- any other file is read by both sides and imports neither (``events/tools.py``).

``grader.catalog`` reads the descriptors and refuses parts that do not add
up (``grader.catalog.check_parts``); ``grader.engine.registry`` adds each
part's rules to its tasks; ``tests/test_registry.py`` checks every folder
has this shape.
"""
