"""Grading side: refuse to grade a module that reaches into the interpreter, read from its source.

The probes observe the learner's code from inside its own process (the
arguments after a call, a race forced in lockstep, the ledger of a run's side
effects), so code in that process that reaches the grader's objects could
rewrite what they report: ``sys.modules["grader.probes"]``, a frame's
``f_back``, a function's ``__globals__``. The lab's exercises need none of
that. Before a part's tasks run, its module and every ``agstate`` file it
imports are read (``ast``, nothing is run) for:

- an import outside ``ALLOWED_IMPORTS`` (the libraries the lab is about and
  the standard library's plain-data modules);
- the builtins that run or look up code by a name made at run time
  (``exec``, ``eval``, ``compile``, ``__import__``, ``globals``, ``vars``,
  ``breakpoint``), and ``getattr``/``setattr``/``delattr``/``hasattr`` with
  a name that is not a plain string;
- an attribute of the interpreter's internals (``DENIED_ATTRIBUTES``, a
  dunder not in ``ALLOWED_DUNDERS``, a module's ``_private`` name, of
  ``sys`` and ``inspect`` anything but their ``ALLOWED_ATTRIBUTES``);
- a string that names any of those (``operator.attrgetter("f_back")``).

A finding costs the part's tasks, like a syntax error, and its feedback
names the file, the line and what to remove. What the reading cannot see (a
name built at run time) meets the learner process's audit hook
(``grader.guard``).
"""

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Finding", "findings", "integrity", "INTEGRITY", "ALLOWED_IMPORTS"]

# The grader's own tests set it; nothing else should. "hook": the learner process's audit hook without
# the reading of the source (the hook's own tests); "off": neither (the sandbox tests: their attacks
# must reach the sandbox itself). A report graded so says it ("integrity").
INTEGRITY = "AGSTATE_INTEGRITY"


def integrity() -> str:
    """``on`` (the default), ``hook`` or ``off``."""
    value = os.environ.get(INTEGRITY, "on")
    return value if value in ("hook", "off") else "on"

# Module paths a lab module may import (a path or one of its submodules), except DENIED_IMPORTS.
ALLOWED_IMPORTS = frozenset({
    "__future__", "abc", "agstate", "annotated_types", "base64", "bisect", "collections", "contextlib", "copy",
    "dataclasses", "datetime", "decimal", "difflib", "enum", "fractions", "functools", "hashlib", "heapq", "html",
    "inspect", "itertools", "json", "langchain_core", "langgraph", "logging", "math", "numbers", "operator", "os",
    "pathlib", "pprint", "psycopg", "psycopg_pool", "pydantic", "queue", "random", "re", "reprlib", "secrets",
    "sqlite3", "statistics", "string", "struct", "sys", "tempfile", "textwrap", "threading", "time", "typing",
    "typing_extensions", "uuid", "warnings", "zlib",
})
# Modules whose other attributes reach the interpreter: only these may be used.
ALLOWED_ATTRIBUTES = {
    "inspect": frozenset({"signature", "Signature", "Parameter", "isclass", "isfunction", "ismethod",
                          "iscoroutinefunction", "isgeneratorfunction", "getdoc", "cleandoc", "get_annotations"}),
    "sys": frozenset({"stdout", "stderr", "maxsize", "version_info", "float_info", "byteorder", "exit",
                      "getsizeof", "getrecursionlimit", "exc_info", "exception", "intern", "hash_info", "platform"}),
}
# Modules allowed by their whole path only (the provided helpers show HTML in a notebook).
ALLOWED_EXACT = frozenset({"IPython.display"})
# Submodules that import other modules by a name given as data.
DENIED_IMPORTS = frozenset({"logging.config", "langchain_core.load", "pydantic.v1", "os.sys"})
_RUNNERS = frozenset({"exec", "eval", "compile", "__import__", "globals", "vars", "breakpoint", "__builtins__",
                      "__loader__", "__spec__", "ImportString"})
_LOOKUPS = frozenset({"getattr", "setattr", "delattr", "hasattr"})
DENIED_ATTRIBUTES = frozenset({
    "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_trace", "tb_frame", "tb_next", "gi_frame", "gi_code",
    "cr_frame", "cr_code", "ag_frame", "ag_code", "_getframe", "_current_frames", "settrace", "setprofile", "gettrace",
    "getprofile", "modules", "meta_path", "path_hooks", "get_objects", "get_referrers", "get_referents",
    "addaudithook", "sys", "gc", "builtins", "importlib", "ctypes", "ImportString", "pythonapi",
})
ALLOWED_DUNDERS = frozenset({
    "__init__", "__new__", "__name__", "__qualname__", "__class__", "__doc__", "__module__", "__annotations__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__repr__", "__str__", "__bool__",
    "__len__", "__iter__", "__next__", "__contains__", "__getitem__", "__setitem__", "__delitem__", "__call__",
    "__enter__", "__exit__", "__post_init__", "__required_keys__", "__optional_keys__", "__total__", "__mro__",
    "__slots__", "__members__", "__version__", "__add__", "__copy__", "__deepcopy__", "__setattr__", "__all__",
})
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


@dataclass(frozen=True)
class Finding:
    file: str  # agstate/<name>.py
    line: int
    what: str

    def sentence(self) -> str:
        return f"{self.file}, line {self.line}: {self.what}"


def findings(package: Path, module: str) -> list[Finding]:
    """What ``agstate/<module>.py`` and the ``agstate`` files it imports (at any depth) reach into."""
    found, seen, queue = [], set(), [module]
    while queue:
        name = queue.pop(0)
        path = package / f"{name}.py"
        if name in seen or not path.is_file():
            continue
        seen.add(name)
        try:
            tree = ast.parse(path.read_bytes(), filename=str(path))
        except (SyntaxError, ValueError):
            continue  # importing it says what is wrong, with the line
        reader = _Reader(f"agstate/{name}.py")
        reader.visit(tree)
        found += reader.found
        queue += reader.local_imports
    return found


def _allowed_import(dotted: str) -> bool:
    if dotted in ALLOWED_EXACT:
        return True
    parts = dotted.split(".")
    prefixes = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return parts[0] in ALLOWED_IMPORTS and not prefixes & DENIED_IMPORTS


def _denied_attribute(name: str) -> bool:
    dunder = name.startswith("__") and name.endswith("__") and len(name) > 4
    return name in DENIED_ATTRIBUTES or (dunder and name not in ALLOWED_DUNDERS)


def _denied_string(text: str) -> str | None:
    """The word of ``text`` that names the interpreter's internals, if it is a dotted name or holds a runner."""
    for word in ("__import__", "__builtins__", "__globals__", "__subclasses__", "__code__", "__closure__"):
        if word in text:
            return word
    if _DOTTED.fullmatch(text):
        parts = text.split(".")
        if not _allowed_import(text) and parts[0] in {"grader", "sys", "gc", "builtins", "importlib", "ctypes",
                                                     "pickle", "marshal", "types", "traceback"}:
            return parts[0]
        return next((part for part in parts if _denied_attribute(part) or part in _RUNNERS), None)
    return None


class _Reader(ast.NodeVisitor):
    def __init__(self, file: str):
        self.file = file
        self.found: list[Finding] = []
        self.local_imports: list[str] = []
        self.restricted: dict[str, str] = {}  # a name `import inspect [as x]` bound -> "inspect"
        self.modules: set[str] = set()  # every name an `import` statement bound
        self._docstrings: set[int] = set()

    def _flag(self, node, what: str) -> None:
        self.found.append(Finding(self.file, getattr(node, "lineno", 0), what))

    def visit_Import(self, node):
        for alias in node.names:
            self._import(node, alias.name)
            self.modules.add(alias.asname or alias.name.split(".")[0])
            if alias.name in ALLOWED_ATTRIBUTES:
                self.restricted[alias.asname or alias.name] = alias.name

    def visit_ImportFrom(self, node):
        if node.level:  # from . import x / from .x import y: another file of the package
            base = node.module.split(".")[0] if node.module else None
            self.local_imports += [base] if base else [alias.name for alias in node.names]
            return
        self._import(node, node.module or "")
        for alias in node.names:
            if node.module == "agstate":
                self.local_imports.append(alias.name)
            if alias.name.startswith("_") or _denied_attribute(alias.name) or alias.name in _RUNNERS:
                self._flag(node, f"imports {alias.name} from {node.module}, which the grader does not allow")
            elif node.module in ALLOWED_ATTRIBUTES and alias.name not in ALLOWED_ATTRIBUTES[node.module]:
                self._flag(node, f"imports {node.module}.{alias.name}, which the grader does not allow")

    def _import(self, node, dotted: str) -> None:
        if dotted == "agstate" or dotted.startswith("agstate."):
            if dotted.count(".") >= 1:
                self.local_imports.append(dotted.split(".")[1])
            return
        if not _allowed_import(dotted):
            self._flag(node, f"imports {dotted}, which the grader does not allow in a lab module")

    def visit_Name(self, node):
        if node.id in _RUNNERS:
            self._flag(node, f"uses {node.id}, which the grader does not allow")
        elif node.id in _LOOKUPS and not getattr(node, "_called_plainly", False):
            self._flag(node, f"uses {node.id} other than as {node.id}(obj, 'name')")

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name) and func.id in _LOOKUPS and len(node.args) >= 2:
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                func._called_plainly = True
                owner = node.args[0]
                if name.value.startswith("_") and isinstance(owner, ast.Name) and owner.id in self.modules:
                    self._flag(node, f"uses {func.id}({owner.id}, {name.value!r}), a private name of a module")
        self.generic_visit(node)

    def visit_Attribute(self, node):
        name, owner = node.attr, node.value
        if _denied_attribute(name):
            self._flag(node, f"uses .{name}, which reaches into the interpreter")
        elif isinstance(owner, ast.Name) and owner.id in self.restricted and \
                name not in ALLOWED_ATTRIBUTES[self.restricted[owner.id]]:
            self._flag(node, f"uses {self.restricted[owner.id]}.{name}, which the grader does not allow")
        elif name.startswith("_") and not name.startswith("__") and isinstance(owner, ast.Name) and owner.id in self.modules:
            self._flag(node, f"uses {owner.id}.{name}, a private name of a module")
        self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, str) and id(node) not in self._docstrings:
            word = _denied_string(node.value)
            if word:
                self._flag(node, f"holds the string {node.value[:40]!r}, which names {word}")

    def visit_Module(self, node):
        self._docstring(node)
        self.generic_visit(node)

    def visit_FunctionDef(self, node):
        self._docstring(node)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._docstring(node)
        self.generic_visit(node)

    def _docstring(self, node) -> None:
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            self._docstrings.add(id(body[0].value))
