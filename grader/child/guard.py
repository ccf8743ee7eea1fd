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
- ``/proc`` (another process's or its own memory and file descriptors).

A refusal raises ``PermissionError`` in the learner's code: the task's
feedback names it, with the learner's line. This is a hardening of one
process, not a proof: the isolation from everything outside it is the
sandbox's (``grader.sandbox.bubblewrap``), and no verdict rests on what the
hook decides. Nor can the learner's code turn it off through this module:
the hook decides with what ``install`` gave its closure (frozen sets, and
the functions it calls itself, taken before the learner's first line runs)
and holds no switch, not even one for the grader's own code. Rebinding a
name of this module, ``os.path.realpath`` or a builtin changes nothing it
decides with (issue 42: one attribute set from a frame's globals, a
thread's "trusted" depth, turned it off). What those functions call in turn
is the interpreter's, shared with the learner's code: a tripwire, as said.
"""

import os
import sys

__all__ = ["install", "hide_grader", "RUNTIME_TOKENS"]

# Words no source compiled at run time has a reason to hold; dataclasses, namedtuple, typing and
# LangGraph compile none of them.
RUNTIME_TOKENS = ("__import__", "__builtins__", "__globals__", "__subclasses__", "__closure__", "__code__",
                  "__dict__", "__getattribute__", "f_back", "f_globals", "f_locals", "tb_frame", "gi_frame",
                  "_getframe", "_current_frames", "sys.modules", "get_objects", "get_referrers", "get_referents",
                  "settrace", "setprofile", "importlib", "ImportString", "pythonapi")
_REFUSED = frozenset({"gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames", "code.__new__",
                      "ctypes.cdata", "ctypes.string_at", "ctypes.wstring_at", "sys.addaudithook", "sys.settrace", "sys.setprofile"})
# Events whose first argument is a path (or a file descriptor, for os.truncate).
_PATH_EVENTS = frozenset({"open", "os.listdir", "os.scandir", "os.remove", "os.rename", "os.truncate", "os.chmod",
                          "os.chown", "os.link", "os.symlink", "os.utime", "os.mkdir", "os.rmdir", "shutil.rmtree",
                          "shutil.copyfile", "shutil.move", "sqlite3.connect", "glob.glob", "os.walk"})

_installed = []  # a second hook would only refuse more, and adding one is refused once the first is in


def install() -> None:
    """Add the hook (once per process; a forked process keeps it)."""
    if not _installed:
        _installed.append(True)
        sys.addaudithook(_made())


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


def _made():
    """The audit hook, a closure over everything it decides with, taken now: no name it looks up at an event can be
    rebound from the learner's code (a module's global, a builtin, ``os.path.realpath``), and no object it reads can
    be changed (the sets are frozen). The function itself is held only by the interpreter."""
    refused, path_events, tokens = frozenset(_REFUSED), frozenset(_PATH_EVENTS), tuple(RUNTIME_TOKENS)
    realpath, isfile, fsdecode = os.path.realpath, os.path.isfile, os.fsdecode
    is_a, text, denied = isinstance, str, PermissionError

    def refuse(what: str):
        raise denied(f"the grader does not let a submission use {what}: it could change what the grader "
                     "observes of your code; remove it")

    def a_file(filename) -> bool:
        """A module imported from its file (its source was read by ``grader.sandbox.reach`` if it is the learner's)."""
        if is_a(filename, bytes):
            filename = fsdecode(filename)
        return is_a(filename, text) and isfile(filename)

    def compiled(source) -> None:
        if is_a(source, bytes):
            source = source.decode("utf-8", "replace")
        if not is_a(source, text):
            refuse("compile() of a syntax tree")
        for token in tokens:
            if token in source:
                refuse(f"code built at run time that names {token}")

    def path(event: str, named) -> None:
        if is_a(named, int):
            if event == "os.truncate":
                refuse("os.ftruncate on a file descriptor")
            return
        if is_a(named, bytes):
            named = fsdecode(named)
        if not is_a(named, text):
            return
        real = realpath(named) if named else named
        if real == "/proc" or real.startswith("/proc/"):
            refuse(f"{named} ({event})")

    def hook(event: str, args: tuple) -> None:
        if event in refused:
            refuse(event)
        elif event == "ctypes.dlopen" and (not args or args[0] is None or "python" in text(args[0])):
            refuse("ctypes on the Python interpreter itself")
        elif event == "object.__setattr__" and len(args) > 1 and args[1] in ("__code__", "__globals__", "__closure__"):
            refuse(f"setting a function's {args[1]}")
        elif event == "compile" and args and not a_file(args[1] if len(args) > 1 else None):
            compiled(args[0])
        elif event in path_events and args:
            path(event, args[0])

    return hook
