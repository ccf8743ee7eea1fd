"""The lab's Jupyter kernel: it reloads a learner module whose file changed, and names an unwritten exercise in one line.

    python -m grader.notebook.kernel [--prefix PREFIX]

Writes ``PREFIX/etc/ipython/ipython_kernel_config.py`` (PREFIX: this
interpreter's environment by default). IPython reads that file for every
kernel started from the environment, so every notebook of the lab gets
IPython's ``autoreload`` without a line of its own: a learner who saves
``agstate/events.py`` and re-runs a cell gets the new code, not the module
imported before the edit. A cell that calls an exercise not written yet
shows the stub's own sentence (``events.append: __init__() is not written
yet; complete it in agstate/events.py (notebook 14_append_and_retry.ipynb)``)
as its whole error, not a traceback through LangGraph; so does a later cell
that fails for want of what that cell would have made (``show_unwritten``).
A kernel of a lab notebook starts its warm grader as it starts
(``start_grader``), so its first ``check()`` finds the grader ready.
``make lab``, ``make test`` and ``agstate-workspace`` write it.
"""

import argparse
import ast
import re
import sys
from pathlib import Path

from grader.i18n import _

__all__ = ["CONFIG", "config_path", "install", "show_unwritten", "unwritten", "bound_names", "start_grader"]

CONFIG = '''\
# Written by `python -m grader.notebook.kernel` (make lab, make test); edits here are overwritten.
# Every kernel of this environment reloads a module whose file changed, before each cell runs (a
# learner's saved edit of agstate/*.py is what the next cell imports), and names an unwritten exercise.
c.InteractiveShellApp.extensions = ["autoreload"]
c.InteractiveShellApp.exec_lines = [
    "%autoreload 2",
    # An exercise not written yet is named in one line: the stub's NotImplementedError says which and where.
    "import grader.notebook.kernel as _agstate_lab; _agstate_lab.show_unwritten(get_ipython()); del _agstate_lab",
    # Hypothesis, in a notebook that uses it, keeps its files in the user's cache, not in the notebook's folder.
    "import grader.caches as _agstate_caches; _agstate_caches.keep_hypothesis_out_of_the_workspace(); del _agstate_caches",
    # The kernel's warm grader starts now, so the first check cell finds it ready (a notebook of the lab only).
    "import grader.notebook.kernel as _agstate_lab; _agstate_lab.start_grader(); del _agstate_lab",
]
'''


def config_path(prefix: str | Path = sys.prefix) -> Path:
    """Where IPython looks for an environment's kernel configuration (IPython's ENV_CONFIG_DIRS)."""
    return Path(prefix) / "etc" / "ipython" / "ipython_kernel_config.py"


def install(prefix: str | Path = sys.prefix) -> Path:
    """Write the configuration under ``prefix``, unless it is there already; the file's path."""
    path = config_path(prefix)
    if not path.exists() or path.read_text(encoding="utf-8") != CONFIG:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(CONFIG, encoding="utf-8")
    return path


def bound_names(source: str) -> set[str]:
    """The names a cell sets at its top level: assigned (``x = …``, ``x[k] = …``, ``x.a = …``), imported, defined."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            base = node
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name):
                names.add(base.id)
    return names


def _used_names(source: str) -> set[str]:
    try:
        return {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
    except SyntaxError:
        return set()


def _subscripted(source: str) -> set[str]:
    """The names a cell reads an item of (``extra["InMemorySaver", 30]`` -> ``extra``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.value.id for node in ast.walk(tree)
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Name)}


def _keyless_stub(shell, source: str) -> str | None:
    """A TypedDict of the learner's package that this cell uses and that has no keys yet (its stub), by name."""
    for name in sorted(_used_names(source)):
        value = shell.user_ns.get(name)
        if isinstance(value, type) and getattr(value, "__module__", "").startswith("agstate.") \
                and hasattr(value, "__required_keys__") and not value.__annotations__:
            return f"{name} (in {value.__module__.replace('.', '/')}.py)"
    return None


# A stub's sentence (grader.authoring.stubs), which the learner's agstate/ holds in English.
_STUB_SENTENCE = re.compile(r"^(?P<task>[\w.]+): (?P<name>\w+)\(\) is not written yet; complete it in (?P<path>\S+) "
                            r"\(notebook (?P<notebook>\S+)\)$")


def unwritten(sentence: str) -> str:
    """A stub's ``NotImplementedError`` sentence in the learner's language (any other sentence as it is)."""
    found = _STUB_SENTENCE.match(sentence)
    if found is None:
        return sentence
    return _("{task}: {name}() is not written yet; complete it in {path} (notebook {notebook})").format(**found.groupdict())


def show_unwritten(shell) -> None:
    """An unwritten exercise, and every cell that fails because of one, in one line; other errors as they are.

    - A ``NotImplementedError`` (a stub's): its own sentence, which names the
      exercise and its notebook. The names the cell would have set are kept:
    - a later cell's ``NameError`` for one of them, or its ``KeyError`` while it
      reads one, says that a cell above stopped, and why (not a bare
      ``name 'your_times' is not defined``) until a cell sets the name again;
    - a later cell's ``AssertionError`` while it uses one (a thread the stopped
      cell was editing, checked here) says the same;
    - a ``TypeError`` or ``KeyError`` in a cell that uses a state class of
      ``agstate`` with no keys yet (a ``TypedDict`` stub: LangGraph then returns
      None) names that class.

    Each cell still fails, so "run all" stops at the first. Any other error
    keeps its traceback.
    """
    stopped: dict[str, str] = {}  # a name a failed cell would have set -> why that cell stopped

    def handle(shell, etype, value, tb, tb_offset=None):
        source = shell.user_ns.get("_ih", [""])[-1] if shell.user_ns.get("_ih") else ""
        line = None
        if issubclass(etype, NotImplementedError):
            line = f"{etype.__name__}: {unwritten(str(value))}"
            stopped.update(dict.fromkeys(bound_names(source), unwritten(str(value))))
        elif issubclass(etype, NameError) and getattr(value, "name", None) in stopped:
            line = "NameError: " + _("{name} is not defined: the cell above that sets it stopped, because {why}. Once it "
                                     "is written, run that cell again").format(name=repr(value.name), why=stopped[value.name])
        elif issubclass(etype, (KeyError, TypeError)) and (stub := _keyless_stub(shell, source)):
            line = f"{etype.__name__}: {value}: " + _(
                "{stub} has no keys yet, so the graph keeps none; write its keys (this notebook's exercise), then run this "
                "cell again").format(stub=stub)
        elif issubclass(etype, KeyError) and (read := sorted(_subscripted(source) & stopped.keys())):
            line = f"KeyError: {value}: " + _("{name} is incomplete: the cell above that fills it stopped, because {why}. "
                                               "Once it is written, run that cell again").format(name=repr(read[0]),
                                                                                              why=stopped[read[0]])
        elif issubclass(etype, AssertionError) and (used := sorted(_used_names(source) & stopped.keys())):
            line = "AssertionError: " + _("this cell uses {name}, which the cell above left unfinished: it stopped, "
                                          "because {why}. Once it is written, run that cell again, then this one").format(
                name=repr(used[0]), why=stopped[used[0]])
        if line is None:
            shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
            return None
        if not issubclass(etype, NotImplementedError) and stopped:  # what this cell sets is missing for the same reason
            reason = next((stopped[name] for name in sorted(_used_names(source)) if name in stopped), None)
            if reason:
                stopped.update({name: reason for name in bound_names(source) if name not in stopped})
        # IPython ignores what a custom handler returns; _showtraceback is the method a kernel (ipykernel)
        # overrides to send a cell's error to the notebook, so the one line arrives as the cell's error output.
        shell._showtraceback(etype, value, [line])
        return [line]

    def forget(result) -> None:  # a cell that ran sets its names for real: a later error about them is its own
        if result.success:
            for name in bound_names(result.info.raw_cell or ""):
                stopped.pop(name, None)

    shell.set_custom_exc((NotImplementedError, NameError, KeyError, TypeError, AssertionError), handle)
    shell.events.register("post_run_cell", forget)


def start_grader() -> None:
    """Start this kernel's warm grader (``grader.notebook.check.warm_up``) when the kernel serves a notebook of the lab.

    A notebook of the lab is one whose folder, or its parent, holds ``agstate/``
    (``grader.notebook.check.workspace``); another notebook of the environment starts nothing.
    """
    from grader.notebook import check as notebook
    from grader.notebook import remote_check

    if remote_check.grades_on_service():
        return  # the course's grading service grades: nothing to start here
    if (notebook.workspace() / "agstate").is_dir():
        notebook.warm_up()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.notebook.kernel", description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", default=sys.prefix, help="the environment's prefix (default: this Python's)")
    install(parser.parse_args(argv).prefix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
