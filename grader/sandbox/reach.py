"""Grading side: refuse to grade a module that reaches into the interpreter, read from its source.

The call server answers from inside the learner's own process (a call's
result, the arguments after it), so code in that process that reaches the
grader's objects could rewrite what it reports: ``sys.modules["grader.child.probes"]``,
a frame's ``f_back``, a function's ``__globals__``. No verdict rests on more
than what the learner's calls return, and this reading is defence in depth:
the lab's exercises need none of that. Before a part's tasks run, the package's ``__init__.py``, the part's
module and every ``agstate`` file they import are read (``ast``, nothing is
run) for:

- an import outside ``ALLOWED_IMPORTS`` (the libraries the lab is about and
  the standard library's everyday modules);
- the builtins that run or look up code by a name made at run time
  (``exec``, ``eval``, ``compile``, ``__import__``, ``globals``, ``vars``,
  ``breakpoint``), unless the module binds that name itself;
- an attribute of the interpreter's internals, read or matched
  (``DENIED_ATTRIBUTES``, a dunder not in ``ALLOWED_DUNDERS``, a module's
  ``_private`` name or its ``modules``; of ``sys``, ``inspect`` and
  ``traceback`` anything but their ``ALLOWED_ATTRIBUTES``);
- a string holding a runner (``"__import__"``) or a dotted path into the
  internals (``operator.attrgetter("f_back.f_globals")``); a single word is
  never one (``add_node("eval", ...)``).

A finding costs the part's tasks, like a syntax error, and its feedback
names the file, the line and what to remove. This is a tripwire for what a
copied cheat looks like, not a proof: a name built at run time passes it,
and meets the learner process's audit hook (``grader.child.guard``) instead.
"""

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path

from grader.i18n import _

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
    "__future__", "abc", "agstate", "annotated_types", "asyncio", "base64", "concurrent", "io", "pydantic_core",
    "traceback", "types", "weakref", "bisect", "collections", "contextlib", "copy",
    "dataclasses", "datetime", "decimal", "difflib", "enum", "fractions", "functools", "hashlib", "heapq", "html",
    "inspect", "itertools", "json", "langchain_core", "langgraph", "logging", "math", "numbers", "operator", "os",
    "pathlib", "pprint", "psycopg", "psycopg_pool", "pydantic", "queue", "random", "re", "reprlib", "secrets",
    "sqlite3", "statistics", "string", "struct", "sys", "tempfile", "textwrap", "threading", "time", "typing",
    "typing_extensions", "uuid", "warnings", "zlib",
})
# Modules whose other attributes reach the interpreter: only these may be used.
ALLOWED_ATTRIBUTES = {
    "inspect": frozenset({"signature", "Signature", "Parameter", "isclass", "isfunction", "ismethod", "isawaitable",
                          "iscoroutinefunction", "isgeneratorfunction", "getdoc", "cleandoc", "get_annotations",
                          "getfullargspec", "isabstract", "isbuiltin", "isroutine"}),
    "sys": frozenset({"stdout", "stderr", "maxsize", "version_info", "version", "float_info", "byteorder", "exit",
                      "getsizeof", "getrecursionlimit", "exc_info", "exception", "intern", "hash_info", "platform",
                      "argv"}),
    "traceback": frozenset({"format_exc", "format_exception", "format_exception_only", "print_exc", "print_exception",
                            "TracebackException"}),
}
# Modules allowed by their whole path only (the provided helpers show HTML in a notebook).
ALLOWED_EXACT = frozenset({"IPython.display"})
# Submodules that import other modules by a name given as data.
DENIED_IMPORTS = frozenset({"logging.config", "langchain_core.load", "pydantic.v1", "os.sys"})
_RUNNERS = frozenset({"exec", "eval", "compile", "__import__", "globals", "vars", "breakpoint", "__builtins__",
                      "__loader__", "__spec__", "ImportString"})
DENIED_ATTRIBUTES = frozenset({
    "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_trace", "tb_frame", "tb_next", "gi_frame", "gi_code",
    "cr_frame", "cr_code", "ag_frame", "ag_code", "_getframe", "_current_frames", "settrace", "setprofile", "gettrace",
    "getprofile", "meta_path", "path_hooks", "get_objects", "get_referrers", "get_referents",
    "addaudithook", "gc", "builtins", "importlib", "ctypes", "ImportString", "pythonapi", "currentframe",
})
# Attribute names that are only the interpreter's on a module (``self.modules`` is the learner's own).
_MODULE_ONLY = frozenset({"modules", "sys"})
ALLOWED_DUNDERS = frozenset({
    "__init__", "__new__", "__name__", "__qualname__", "__class__", "__doc__", "__module__", "__annotations__",
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__repr__", "__str__", "__bool__",
    "__len__", "__iter__", "__next__", "__contains__", "__getitem__", "__setitem__", "__delitem__", "__call__",
    "__enter__", "__exit__", "__post_init__", "__required_keys__", "__optional_keys__", "__total__", "__mro__",
    "__slots__", "__members__", "__version__", "__add__", "__copy__", "__deepcopy__", "__setattr__", "__all__",
    "__main__", "__dict__", "__cause__", "__context__", "__traceback__", "__init_subclass__", "__wrapped__",
    "__dataclass_fields__", "__set_name__", "__get__", "__set__", "__delete__", "__class_getitem__", "__sub__",
    "__or__", "__and__", "__mul__", "__radd__", "__iadd__", "__neg__", "__abs__", "__int__", "__float__", "__index__",
    "__reversed__", "__missing__", "__format__", "__sizeof__", "__reduce__", "__getstate__", "__setstate__",
    "__pydantic_fields__", "__fields__", "__signature__", "__defaults__", "__kwdefaults__", "__func__", "__self__",
    "__bases__", "__base__", "__orig_bases__", "__parameters__", "__args__", "__origin__", "__metadata__",
})
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


@dataclass(frozen=True)
class Finding:
    file: str  # agstate/<name>.py
    line: int
    what: str

    def sentence(self) -> str:
        return _("{file}, line {line}: {what}").format(file=self.file, line=self.line, what=self.what)


def findings(package: Path, module: str) -> list[Finding]:
    """What ``agstate/<module>.py`` and the ``agstate`` files it imports (at any depth) reach into."""
    found, seen, queue = [], set(), ["__init__", module]  # the package's __init__ runs first
    while queue:
        name = queue.pop(0)
        path = package / f"{name}.py"
        if name in seen or not path.is_file():
            continue
        seen.add(name)
        try:
            tree = ast.parse(path.read_bytes(), filename=str(path))
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # nested past what the parser takes
            continue  # importing it says what is wrong, with the line
        reader = _Reader(f"agstate/{name}.py")
        reader.read(tree)
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


_FORBIDDEN_ROOTS = frozenset({"grader", "gc", "builtins", "importlib", "ctypes", "pickle", "marshal"})
_RUNNER_WORDS = ("__import__", "__builtins__", "__globals__", "__subclasses__", "__code__", "__closure__")


def _denied_string(text: str) -> str | None:
    """The word of ``text`` that names the interpreter's internals: a runner anywhere, or a dotted path into them.

    A single word is never a finding: ``add_node("eval", ...)`` names a node.
    """
    for word in _RUNNER_WORDS:
        if word in text:
            return word
    if not _DOTTED.fullmatch(text) or "." not in text:
        return None
    parts = text.split(".")
    if parts[0] in _FORBIDDEN_ROOTS:
        return parts[0]
    if parts[0] == "sys" and parts[1] not in ALLOWED_ATTRIBUTES["sys"]:
        return text
    return next((part for part in parts if part in DENIED_ATTRIBUTES), None)


class _Reader(ast.NodeVisitor):
    def __init__(self, file: str):
        self.file = file
        self.found: list[Finding] = []
        self.local_imports: list[str] = []
        self.restricted: dict[str, str] = {}  # a name `import inspect [as x]` bound -> "inspect"
        self.modules: set[str] = set()  # every name an `import` statement bound
        self._docstrings: set[int] = set()
        self.bound: set[str] = set()  # names the module binds itself (a parameter called compile)

    def read(self, tree: ast.AST) -> None:
        """Visit every node as ``NodeVisitor.visit`` would (before its children, children in order), from a stack
        instead of recursion: ``a + a + ... + a`` 500 terms long is a learner's module to read, not a RecursionError
        of the grader's (which would say "the grader failed")."""
        stack = [tree]
        while stack:
            node = stack.pop()
            visit = getattr(self, f"visit_{type(node).__name__}", None)
            if visit is not None:
                visit(node)
            stack.extend(reversed(list(ast.iter_child_nodes(node))))

    def generic_visit(self, node) -> None:
        """Nothing: ``read`` visits the children."""

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
                self._flag(node, _("imports {name} from {module}, which the grader does not allow").format(
                    name=alias.name, module=node.module))
            elif node.module in ALLOWED_ATTRIBUTES and alias.name not in ALLOWED_ATTRIBUTES[node.module]:
                self._flag(node, _("imports {module}.{name}, which the grader does not allow").format(
                    module=node.module, name=alias.name))

    def _import(self, node, dotted: str) -> None:
        if dotted == "agstate" or dotted.startswith("agstate."):
            if dotted.count(".") >= 1:
                self.local_imports.append(dotted.split(".")[1])
            return
        if not _allowed_import(dotted):
            self._flag(node, _("imports {module}, which the grader does not allow in a lab module").format(module=dotted))

    def visit_Name(self, node):
        if node.id in _RUNNERS and node.id not in self.bound:
            self._flag(node, _("uses {name}, which the grader does not allow").format(name=node.id))

    def visit_Call(self, node):
        func, args = node.func, node.args
        if isinstance(func, ast.Name) and func.id in ("getattr", "setattr", "delattr", "hasattr") and len(args) >= 2:
            owner, name = args[0], args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str) and isinstance(owner, ast.Name) \
                    and owner.id in self.modules and (name.value.startswith("_") or name.value in _MODULE_ONLY):
                self._flag(node, _("uses {call}, which reaches into the interpreter").format(
                    call=f"{func.id}({owner.id}, {name.value!r})"))
        self.generic_visit(node)

    def visit_MatchClass(self, node):
        """``case object(f_back=back)`` reads an attribute named by a bare word."""
        for name in node.kwd_attrs:
            if _denied_attribute(name):
                self._flag(node, _("matches .{name}, which reaches into the interpreter").format(name=name))
        self.generic_visit(node)

    def visit_Attribute(self, node):
        name, owner = node.attr, node.value
        of_module = isinstance(owner, ast.Name) and owner.id in self.modules
        if _denied_attribute(name) or (of_module and name in _MODULE_ONLY):
            self._flag(node, _("uses .{name}, which reaches into the interpreter").format(name=name))
        elif isinstance(owner, ast.Name) and owner.id in self.restricted and \
                name not in ALLOWED_ATTRIBUTES[self.restricted[owner.id]]:
            self._flag(node, _("uses {name}, which the grader does not allow").format(name=f"{self.restricted[owner.id]}.{name}"))
        elif name.startswith("_") and not name.startswith("__") and of_module:
            self._flag(node, _("uses {name}, a private name of a module").format(name=f"{owner.id}.{name}"))
        self.generic_visit(node)

    def visit_Constant(self, node):
        if isinstance(node.value, str) and id(node) not in self._docstrings:
            word = _denied_string(node.value)
            if word:
                self._flag(node, _("holds the string {string}, which names {word}").format(string=repr(node.value[:40]), word=word))

    def visit_Module(self, node):
        self.bound = {n.arg for n in ast.walk(node) if isinstance(n, ast.arg)} | \
                     {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} | \
                     {n.name for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
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
