"""Child side: an audit hook that keeps the learner's code away from the grader's evidence in its own process.

The call server answers the grading side from inside the learner's process:
the arguments after a call, a value held by handle. Code in that process
could rewrite what it answers, so no verdict rests on more than what the
learner's own calls return, and the grading side refuses to grade a module
that reaches into the interpreter (``grader.sandbox.reach``, a reading of
its source). This hook is defence in depth beside them, for what a reading
of the source cannot see (a name built at run time): it is installed before
the learner's module is imported and, like every PEP 578 hook, cannot be
removed. It refuses:

- walking the heap (``gc.get_objects`` and its kin) and poking memory
  (``ctypes`` objects made from an address, ``ctypes.pythonapi``);
- another thread's frames (``sys._current_frames``), tracing and profiling
  (``sys.settrace``, ``sys.setprofile``: nothing of the grader's traces here);
- rewriting a function's code or making code objects by hand;
- compiling source built at run time (not a module's file) that names the
  interpreter's internals (``__import__``, ``sys.modules``, ``f_back`` ...):
  what a ``ForwardRef`` or an ``eval`` of a built string would run;
- finding the grader's modules by name: they are out of ``sys.modules``
  (``hide_grader``) and, in the sandbox, out of sight on disk;
- ``/proc`` (another process's or its own memory and file descriptors) and
  the files the probes keep as evidence (``protect``), except for the probes
  themselves (``permitted``).

A refusal raises ``PermissionError`` in the learner's code: the task's
feedback names it, with the learner's line. This is a hardening of one
process, not a proof: the isolation from everything outside it is the
sandbox's (``grader.sandbox.bubblewrap``).
"""

import contextlib
import os
import sys
import threading

__all__ = ["install", "permitted", "protect", "hide_grader", "RUNTIME_TOKENS"]

# Words no source compiled at run time has a reason to hold; dataclasses, namedtuple, typing and
# LangGraph compile none of them.
RUNTIME_TOKENS = ("__import__", "__builtins__", "__globals__", "__subclasses__", "__closure__", "__code__",
                  "__dict__", "__getattribute__", "f_back", "f_globals", "f_locals", "tb_frame", "gi_frame",
                  "_getframe", "_current_frames", "sys.modules", "get_objects", "get_referrers", "get_referents",
                  "settrace", "setprofile", "importlib", "ImportString", "pythonapi")
_REFUSED = {"gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames", "code.__new__",
            "ctypes.cdata", "ctypes.string_at", "ctypes.wstring_at", "sys.addaudithook", "sys.settrace", "sys.setprofile"}
# Events whose first argument is a path (or a file descriptor, for os.truncate).
_PATH_EVENTS = {"open", "os.listdir", "os.scandir", "os.remove", "os.rename", "os.truncate", "os.chmod", "os.chown",
                "os.link", "os.symlink", "os.utime", "os.mkdir", "os.rmdir", "shutil.rmtree", "shutil.copyfile",
                "shutil.move", "sqlite3.connect", "glob.glob", "os.walk"}

_state = {"installed": False}
_protected: set[str] = set()
_trusted = threading.local()


def install() -> None:
    """Add the hook (once per process; a forked process keeps it)."""
    if not _state["installed"]:
        _state["installed"] = True
        sys.addaudithook(_hook)


def hide_grader() -> list:
    """Take the grader's modules out of ``sys.modules`` (and the zygote's ``__main__``); returns them, to keep alive.

    The probes keep the module objects they use; a learner's lookup by name
    finds nothing, and an import by name finds no grader in the sandbox.
    """
    import types

    hidden = [sys.modules.pop(name) for name in list(sys.modules) if name == "grader" or name.startswith("grader.")]
    hidden.append(sys.modules.get("__main__"))
    sys.modules["__main__"] = types.ModuleType("__main__")
    return hidden


def protect(path: str) -> None:
    """The probes' evidence: only code inside ``permitted()`` may open, list, connect to or change ``path``."""
    _protected.add(os.path.realpath(path))


@contextlib.contextmanager
def permitted():
    """The probes' own code, which the hook lets do anything (this thread only; no learner code runs inside)."""
    _trusted.depth = getattr(_trusted, "depth", 0) + 1
    try:
        yield
    finally:
        _trusted.depth -= 1


def _refuse(what: str):
    raise PermissionError(f"the grader does not let a submission use {what}: it could change what the grader "
                          "observes of your code; remove it")


def _hook(event: str, args: tuple) -> None:
    if getattr(_trusted, "depth", 0):
        return
    if event in _REFUSED:
        _refuse(event)
    elif event == "ctypes.dlopen" and (not args or args[0] is None or "python" in str(args[0])):
        _refuse("ctypes on the Python interpreter itself")
    elif event == "object.__setattr__" and len(args) > 1 and args[1] in ("__code__", "__globals__", "__closure__"):
        _refuse(f"setting a function's {args[1]}")
    elif event == "compile" and args and not _a_file(args[1] if len(args) > 1 else None):
        _compiled(args[0])
    elif event in _PATH_EVENTS and args:
        _path(event, args[0])


def _a_file(filename) -> bool:
    """A module imported from its file (its source was read by ``grader.sandbox.reach`` if it is the learner's)."""
    if isinstance(filename, bytes):
        filename = os.fsdecode(filename)
    return isinstance(filename, str) and os.path.isfile(filename)


def _compiled(source) -> None:
    if isinstance(source, bytes):
        source = source.decode("utf-8", "replace")
    if not isinstance(source, str):
        _refuse("compile() of a syntax tree")
    for token in RUNTIME_TOKENS:
        if token in source:
            _refuse(f"code built at run time that names {token}")


def _path(event: str, path) -> None:
    if isinstance(path, int):
        if event == "os.truncate":
            _refuse("os.ftruncate on a file descriptor")
        return
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str):
        return
    real = os.path.realpath(path) if path else path
    if real == "/proc" or real.startswith("/proc/"):
        _refuse(f"{path} ({event})")
    for protected in _protected:
        if real == protected or real.startswith(protected + "/") or protected.startswith(real.rstrip("/") + "/"):
            _refuse(f"the grader's own file {protected} ({event})")
