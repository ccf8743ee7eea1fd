"""A module that reaches into the grader's process is not graded (``grader.sandbox.reach``), and the hook behind it holds.

The probes watch the learner's code from inside its own process, so a module
that rewrites them could claim what its code does not do: a stub that answers
the grader's ``call`` probe itself scored 12/15 on ``state.append`` before
this. Two lines stop it, each tested here on its own:

- the reading of the source (``grader.sandbox.reach``): every construct that reaches
  the interpreter's internals is named with its file and line, and costs the
  part's tasks; the references, the stubs, the provided helpers and every
  mutant read clean, so none of them loses a mark to it;
- the learner process's audit hook (``grader.child.guard``), with the reading
  switched off (``AGSTATE_INTEGRITY=hook``): the forgery that scored 12/15 scores
  nothing, a heap walk, ``/proc``, a tracer, a built string that names the
  internals and the probes' evidence files are refused.
"""

import json
import subprocess
import sys
import textwrap

import pytest
from support import submissions
from support.corpus import Corpus
from support.paths import LEARNER, REFERENCE, ROOT

from grader.engine.registry import MODULES, TASKS
from grader.engine.runner import grade_submission
from grader.sandbox import reach
from grader.sandbox.reach import INTEGRITY

pytestmark = pytest.mark.unit

PARTS = list(MODULES)

# A stub state.py that answers the grader's "call" probe for append itself: the forgery found in review.
FORGERY = '''
import sys as _sys

_probes = _sys.modules.get("grader.child.probes")
if _probes is not None:
    _real_call = _probes.PROBES["call"]

    def _forged(ctx, name, args):
        if name == "append":
            old, new = args
            items = list(new) if isinstance(new, (list, tuple)) else [new]
            return {"result": [*(old or []), *items], "args_after": args, "returned_an_argument": [False, False]}
        return _real_call(ctx, name, args)

    _probes.PROBES["call"] = _forged
'''


def _read(tmp_path, source: str, module: str = "state", **others) -> list[reach.Finding]:
    package = tmp_path / "agstate"
    package.mkdir(exist_ok=True)
    (package / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    for name, text in others.items():
        (package / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    return reach.findings(package, module)


def test_a_deep_expression_is_read_to_its_end_and_one_too_deep_for_the_parser_is_left_to_the_import(tmp_path):
    """A grader's RecursionError would say "the grader failed, not your code": the reading takes any depth."""
    long_sum = "total = " + " + ".join(["1"] * 1500) + "\nimport ctypes\n"
    assert [finding.what for finding in _read(tmp_path, long_sum)] == [
        "imports ctypes, which the grader does not allow in a lab module"]
    assert _read(tmp_path, "x = " + "-" * 100_000 + "1\n") == []  # the parser gives up; importing it says so


@pytest.mark.parametrize("package", [REFERENCE, LEARNER], ids=["reference", "stubs"])
def test_the_lab_s_own_modules_read_clean(package):
    for module in MODULES.values():
        assert reach.findings(package, module) == [], module


@pytest.mark.parametrize("part", PARTS)
def test_no_mutant_loses_a_mark_to_the_reading(part, tmp_path):
    corpus = Corpus(part)
    for mutant in corpus.mutants:
        found = _read(tmp_path, corpus.mutant_source(mutant), MODULES[part])
        assert found == [], (mutant.name, found)


# (source, the line of the finding, words of it): each construct that reaches the interpreter's internals.
REACHES = [
    ("import sys\nx = sys.modules\n", 2, "uses .modules"),
    ("from sys import _getframe\n", 1, "imports _getframe from sys"),
    ("import sys as s\nx = s.path\n", 2, "uses sys.path"),
    ("import gc\n", 1, "imports gc"),
    ("import ctypes\n", 1, "imports ctypes"),
    ("import importlib\n", 1, "imports importlib"),
    ("import pickle\n", 1, "imports pickle"),
    ("import logging.config\n", 1, "imports logging.config"),
    ("from grader import probes\n", 1, "imports grader"),
    ("from threading import _active\n", 1, "imports _active from threading"),
    ("import os\nx = os.sys\n", 2, "uses .sys"),
    ("import inspect\nf = inspect.currentframe()\n", 2, "uses .currentframe"),
    ("def walk(frame):\n    match frame:\n        case object(f_back=back):\n            return back\n", 3, "matches .f_back"),
    ("from inspect import stack\n", 1, "inspect.stack"),
    ("def f():\n    return (lambda: 0).__globals__\n", 2, "uses .__globals__"),
    ("def f(x):\n    return x.__class__.__subclasses__()\n", 2, "uses .__subclasses__"),
    ("def f(e):\n    return e.__traceback__.tb_frame.f_back\n", 2, "uses .f_back"),
    ("x = eval('1')\n", 1, "uses eval"),
    ("exec('x = 1')\n", 1, "uses exec"),
    ("x = __import__('os')\n", 1, "uses __import__"),
    ("x = vars()\n", 1, "uses vars"),
    ("import os\nx = getattr(os, 'sys')\n", 2, "uses getattr(os, 'sys')"),
    ("import operator\nx = operator.attrgetter('f_back.f_globals')\n", 2, "names f_back"),
    ("import threading\nx = threading._shutdown\n", 2, "threading._shutdown, a private name of a module"),
    ("from pydantic import ImportString\n", 1, "ImportString"),
    ("import typing\nx = typing.ForwardRef(\"__import__('os')\")\n", 2, "names __import__"),
    (FORGERY, 4, "uses .modules"),
]


@pytest.mark.parametrize(("source", "line", "words"), REACHES, ids=[r[2] for r in REACHES])
def test_each_reach_is_named_with_its_line(source, line, words, tmp_path):
    found = _read(tmp_path, source)
    assert found, source
    assert found[0].line == line and words in found[0].what, found
    assert found[0].sentence().startswith(f"agstate/state.py, line {line}: ")


# What a lab module may well hold: none of it is a finding.
FINE = [
    "class Stream:\n    def __init__(self):\n        self._events = []\n\ndef peek(stream):\n    return stream._events\n",
    "import sys\ndef debug(x):\n    print(x, file=sys.stderr)\n",
    "import inspect\ndef takes_key(tool):\n    return 'idempotency_key' in inspect.signature(tool).parameters\n",
    "def name(x):\n    return getattr(x, 'name', None)\n",
    "def f(x):\n    return type(x).__name__ + x.__class__.__qualname__\n",
    '"""Never touch sys.modules or f_back here."""\nimport threading\nLOCK = threading.Lock()\n',
    "from IPython.display import HTML\nfrom langgraph.graph import StateGraph\nfrom pydantic import BaseModel\n",
    "class M(dict):\n    def __init__(self):\n        super().__init__()\n        super()._x = 1\n",
    # What a red-team pass found refused wrongly before:
    "def f(x):\n    return x\n\nif __name__ == '__main__':\n    print(f(1))\n",
    "def build(g, f):\n    g.add_node('eval', f)\n    return ['exec', 'plan']\n",
    "def pick(e, k):\n    return getattr(e, k), hasattr(e, k)\n",
    "class E:\n    def __hash__(self):\n        return hash(tuple(self.__dict__))\n",
    "import traceback\ndef why(e):\n    return e.__cause__, traceback.format_exc()\n",
    "import types\nFROZEN = types.MappingProxyType({})\n",
    "def run(compile):\n    return compile()\n",
    "class Plan:\n    def __init__(self):\n        self.modules = []\n",
    "import inspect\ndef awaits(x):\n    return inspect.isawaitable(x)\n",
]


@pytest.mark.parametrize("source", FINE)
def test_ordinary_code_is_not_a_finding(source, tmp_path):
    assert _read(tmp_path, source) == []


def test_an_imported_agstate_file_is_read_too(tmp_path):
    found = _read(tmp_path, "from agstate.helpers import tidy\nfrom . import extra\n", "state",
                  helpers="import gc\ndef tidy():\n    pass\n", extra="x = eval('1')\n")
    assert sorted(f.sentence() for f in found) == [
        "agstate/extra.py, line 1: uses eval, which the grader does not allow",
        "agstate/helpers.py, line 1: imports gc, which the grader does not allow in a lab module"]


def test_the_package_s_init_is_read_first(tmp_path):
    found = _read(tmp_path, "x = 1\n", "state", __init__="import sys\nf = sys._getframe()\n")
    assert [f.sentence() for f in found] == ["agstate/__init__.py, line 2: uses ._getframe, which reaches into the interpreter"]


def _forgery_submission(tmp_path, attack: str = FORGERY):
    stub = (LEARNER / "state.py").read_text(encoding="utf-8")
    return submissions.build_submission(tmp_path / "forged", modules={"state.py": stub + attack})


@pytest.mark.part
def test_a_forgery_costs_its_part_and_says_where(tmp_path):
    state_tasks = [task_id for task_id, task in TASKS.items() if task.part == "state"]
    report = grade_submission(str(_forgery_submission(tmp_path)), state_tasks, seed=3, examples=10, timeout=10)
    assert report["integrity"] == "calls"
    assert report["score"] == 0.0
    line = (LEARNER / "state.py").read_text(encoding="utf-8").count("\n") + 4
    for task in report["tasks"]:
        assert task["status"] == "error", task
        assert task["feedback"].startswith(f"agstate/state.py, line {line}: uses .modules"), task["feedback"]
        assert "remove it" in task["feedback"]


@pytest.mark.part
def test_a_module_refused_before_any_task_runs_leaves_stderr_quiet(tmp_path):
    """The grader is done before its zygote is ready: the zygote goes without a BrokenPipeError traceback."""
    from support.cli import run_cli

    stub = (LEARNER / "state.py").read_text(encoding="utf-8")
    refused = submissions.build_submission(tmp_path / "refused", modules={"state.py": stub + "import signal\n"})
    done = run_cli(str(refused), "--task", "state.keep_max", "--json", "--seed", "1")
    assert done.returncode == 1 and "imports signal" in done.stdout
    assert done.stderr == ""


# Attacks graded with the reading off (as the sandbox tests grade): the hook alone must hold.
SWITCH_OFF = '''
import sys as _sys
import types as _types

_frame, _guard = _sys._getframe(0), None
while _frame is not None and _guard is None:
    _guard = _frame.f_globals.get("guard")
    _frame = _frame.f_back
for _name, _value in list(vars(_guard).items()):
    if _name.startswith("__") or isinstance(_value, _types.ModuleType):
        continue
    if isinstance(_value, (set, dict, list)):
        _value.clear()
    elif isinstance(_value, (frozenset, tuple, str)):
        setattr(_guard, _name, type(_value)())
    elif callable(_value):
        setattr(_guard, _name, lambda *args, **kwargs: None)
    else:
        _value.depth = 1  # the old hook's per-thread switch: "the probes' own code runs"
'''
RUNTIME = [
    # The forgery that scored 12/15: the grader's modules are no longer in sys.modules.
    ("sys.modules", FORGERY, "state.append", None),
    ("heap walk", "import gc\n_found = [o for o in gc.get_objects() if isinstance(o, dict) and 'call' in o]\n",
     "state.append", "PermissionError: the grader does not let a submission use gc.get_objects"),
    ("built string", "import typing\n_x = typing.ForwardRef('__imp' + 'ort__(\"os\")')\n", "state.append",
     "code built at run time that names __import__"),
    ("own memory", "_mem = open('/proc/self/mem', 'rb')\n", "state.append", "/proc/self/mem"),
    # Issue 42: the guard module, found up the call server's frames, had one attribute (a thread's trusted depth) that
    # turned the hook off. Every attribute of it cleared, emptied or replaced, the heap walk is still refused.
    ("hook switched off", SWITCH_OFF + "import gc\n_found = gc.get_objects()\n", "state.append",
     "PermissionError: the grader does not let a submission use gc.get_objects"),
]


@pytest.mark.parametrize(("name", "attack", "task_id", "says"), RUNTIME, ids=[r[0] for r in RUNTIME])
@pytest.mark.part
def test_the_hook_holds_with_the_reading_off(name, attack, task_id, says, tmp_path, monkeypatch):
    monkeypatch.setenv(INTEGRITY, "hook")
    report = grade_submission(str(_forgery_submission(tmp_path, attack)), [task_id], seed=3, examples=10, timeout=10)
    assert report["integrity"] == "hook"
    task = report["tasks"][0]
    assert task["score"] == 0.0, task
    if says:
        assert task["status"] == "error" and says in task["feedback"], task["feedback"]


GUARD_SCRIPT = r'''
import json, os, sqlite3, sys, tempfile
from grader.child import guard

guard.install()
kept = guard.hide_grader()
results = {}

def attempt(name, call):
    try:
        call()
        results[name] = "allowed"
    except PermissionError as exc:
        results[name] = "refused: " + str(exc)

attempt("gc.get_objects", lambda: __import__("gc").get_objects())
attempt("/proc/self/mem", lambda: open("/proc/self/mem", "rb"))
attempt("/proc listing", lambda: os.listdir("/proc/self/fd"))
attempt("settrace", lambda: sys.settrace(None))
attempt("ctypes memory", lambda: __import__("ctypes").c_char.from_address(id(results)))
attempt("built string", lambda: eval("__import__('os')"))
attempt("code replaced", lambda: setattr(attempt, "__code__", attempt.__code__))
attempt("plain eval", lambda: eval("1 + 1"))
attempt("a file of one's own", lambda: open(os.path.join(tempfile.mkdtemp(), "mine.txt"), "w").close())
attempt("a database of one's own", lambda: sqlite3.connect(os.path.join(tempfile.mkdtemp(), "mine.db")).close())
results["grader modules found"] = sorted(m for m in sys.modules if m.startswith("grader"))
print(json.dumps(results))
'''


def test_the_hook_refuses_what_it_says_and_lets_the_rest_be():
    done = subprocess.run([sys.executable, "-c", GUARD_SCRIPT], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    allowed = {"plain eval", "a file of one's own", "a database of one's own"}
    for name, outcome in results.items():
        if name == "grader modules found":
            assert outcome == []
        elif name in allowed:
            assert outcome == "allowed", (name, outcome)
        else:
            assert outcome.startswith("refused: the grader does not let a submission use"), (name, outcome)


# Issue 42's attack on the hook alone: every attribute of the guard module cleared, emptied or replaced (SWITCH_OFF),
# and os.path.realpath too, then the hook is tried.
SWITCH_OFF_SCRIPT = """
import gc, json, os, sys
from grader.child import guard

guard.install()
kept = guard.hide_grader()
""" + SWITCH_OFF + r'''
os.path.realpath = lambda path: "/nowhere"
results = {}
for what, call in (("heap walk", gc.get_objects), ("own memory", lambda: open("/proc/self/mem", "rb")),
                   ("tracing", lambda: sys.settrace(None)), ("built string", lambda: eval("__import__('os')"))):
    try:
        call()
        results[what] = "allowed"
    except PermissionError:
        results[what] = "refused"
print(json.dumps(results))
'''


def test_no_attribute_set_from_a_frame_turns_the_hook_off():
    done = subprocess.run([sys.executable, "-c", SWITCH_OFF_SCRIPT], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"heap walk": "refused", "own memory": "refused", "tracing": "refused", "built string": "refused"}
