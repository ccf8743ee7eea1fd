"""Trusted scenarios run inside the learner's process: the registry of every part's ``probes/``.

A probe calls the learner's code (a function, a schema, a graph builder) and
returns plain data about what happened: results, arguments after the call,
final graph states, channel kinds. Probes never judge; the grading process
compares their data with the rules. The zygote imports every part's probes
(``load``) before it forks a learner; the grading side never needs them,
and they import nothing of the grading side (no rules, models or answers).
"""

import importlib

from typing_extensions import TypedDict, get_type_hints

from grader.wire import Raised

__all__ = ["Context", "Missing", "PROBES", "Raised", "probe", "load"]

PROBES = {}


class Missing(Exception):
    """The learner's module lacks a name the task needs."""


class Context:
    """What a probe may use: the learner's module and the submission path."""

    def __init__(self, module, submission):
        self.module = module
        self.submission = submission

    def get(self, name: str):
        try:
            return getattr(self.module, name)
        except AttributeError:
            raise Missing(f"agstate/{self.module.__name__.rsplit('.', 1)[-1]}.py has no '{name}'") from None

    def sub_schema(self, schema_name: str, keys):
        """A TypedDict with only ``keys`` of the learner's schema, annotations (reducers) kept.

        Testing one key alone means a broken rule on another key cannot fail this one.
        """
        hints = get_type_hints(self.get(schema_name), include_extras=True)
        for key in keys:
            if key not in hints:
                raise Missing(f"{schema_name} has no key '{key}'")
        return TypedDict(f"{schema_name}Probe", {key: hints[key] for key in keys}, total=False)

    def attempt(self, call, attrs=()):
        """``call()``'s value, or a ``Raised`` with the facts of what the learner's code raised.

        The one place a probe lets the learner's code fail. A stub's
        NotImplementedError goes through (the task is not written yet, and the
        grading side says so instead of judging a result), and so does a name
        the module lacks (``Missing``, from ``get`` inside the call). ``attrs``: the
        exception's attributes a rule reads (``StaleVersion.expected``).
        """
        try:
            return call()
        except (NotImplementedError, Missing):  # not written yet, or a name not defined: the task's verdict
            raise
        except Exception as exc:
            return Raised.of(exc, self.submission, attrs)


def probe(fn):
    """Register ``fn`` under its name; two probes of one name would silently answer for each other."""
    if fn.__name__ in PROBES:
        raise ValueError(f"probe {fn.__name__!r} is defined twice ({PROBES[fn.__name__].__module__} and {fn.__module__})")
    PROBES[fn.__name__] = fn
    return fn


def load() -> None:
    """Import the generic probes and every part's (idempotent)."""
    from grader.catalog import NAMES

    importlib.import_module("grader.child.generic")
    for part in NAMES:
        importlib.import_module(f"grader.parts.{part}.probes")
