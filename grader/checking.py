"""Rules, checked on random examples: the vocabulary every task is written in.

A task is a list of rules. A rule draws examples with Hypothesis (seeded, so a
report can be repeated), calls the learner's code through the child, and
states what it expected. A broken rule raises ``Failure``; Hypothesis shrinks
the example, and the smallest one becomes the learner's feedback.
"""

import hashlib
import reprlib
import time
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis.errors import Flaky

from grader.sandbox import ChildFailed, LoadFailed, MissingName, Raised

__all__ = ["Failure", "Abort", "Call", "Checker", "show", "jsonable"]

_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60
_short.maxlist = _short.maxtuple = 10
_short.maxdict = 8


def show(value) -> str:
    """A short Python-looking rendering of a value for feedback."""
    return _short.repr(value)


def jsonable(value):
    """``value`` as JSON data for the report (tuples become lists, oddities their repr)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(item) for item in value), key=repr)
    return repr(value)


class Failure(Exception):
    """A rule broken on one example; Hypothesis shrinks it. ``status``: failed or error."""

    def __init__(self, feedback: str, counterexample: dict | None = None, status: str = "failed"):
        super().__init__(feedback)
        self.feedback = feedback
        self.counterexample = counterexample
        self.status = status


class Abort(BaseException):
    """Stop the rule now, without shrinking: not implemented, missing, crashed, out of time.

    A BaseException so Hypothesis lets it through instead of shrinking on it.
    """

    def __init__(self, status: str, feedback: str):
        super().__init__(feedback)
        self.status = status
        self.feedback = feedback


@dataclass
class Call:
    """What one call of a learner function did."""

    name: str
    args: list
    result: object = None
    args_after: list = field(default_factory=list)
    returned_an_argument: list = field(default_factory=list)
    raised: Raised | None = None

    def text(self) -> str:
        return f"{self.name}({', '.join(show(a) for a in self.args)})"

    def counterexample(self, expected, got=None) -> dict:
        return {"call": self.name, "args": jsonable(self.args), "expected": jsonable(expected),
                "got": jsonable(self.result if got is None else got)}


class Checker:
    """A task's access to the learner's child, its seed, its example count and its time budget."""

    def __init__(self, session, task_id: str, seed_value: int, examples: int, deadline: float):
        self.session = session
        self.task_id = task_id
        self.seed = seed_value
        self.examples = examples
        self.deadline = deadline
        self._answers = {}

    # -- talking to the child -------------------------------------------------
    def probe(self, name: str, *args, limit: float | None = None):
        """Run a probe; a stub, a missing name, a crash or the time budget abort the rule."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise Abort("timeout", "this task ran out of time before all its rules were checked")
        try:
            value = self.session.probe(name, *args, timeout=min(remaining, limit or remaining))
        except ChildFailed as exc:
            raise Abort(exc.status, exc.message) from None
        except LoadFailed as exc:
            raise Abort("error", f"your module failed to import again: {exc}") from None
        except MissingName as exc:
            raise Abort("error", f"{exc}: define it as the spec says (see the module's docstrings)") from None
        if isinstance(value, Raised) and value.is_a("NotImplementedError"):
            raise Abort("not_implemented", f"{value.info['message'] or 'not implemented yet'}")
        return value

    def once(self, name: str, *args):
        """``probe`` for questions whose answer cannot change within a task (a schema's channels)."""
        key = (name, repr(args))
        if key not in self._answers:
            self._answers[key] = self.probe(name, *args)
        return self._answers[key]

    def call(self, name: str, *args) -> Call:
        """Call the learner's ``name(*args)``; exceptions come back in ``Call.raised``."""
        return self._as_call(name, list(args), self.probe("call", name, list(args)))

    def call_made(self, factory: str, factory_args: list, *args) -> Call:
        """Call the reducer the learner's ``factory(*factory_args)`` returns."""
        label = f"{factory}({', '.join(show(a) for a in factory_args)})"
        return self._as_call(label, list(args), self.probe("call_made", factory, list(factory_args), list(args)))

    def value(self, name: str, *args) -> Call:
        """Like ``call``, but an exception is the learner's error on this example."""
        return self._no_raise(self.call(name, *args))

    def value_made(self, factory: str, factory_args: list, *args) -> Call:
        return self._no_raise(self.call_made(factory, factory_args, *args))

    @staticmethod
    def _as_call(name: str, args: list, value) -> Call:
        if isinstance(value, Raised):
            return Call(name, args, raised=value)
        return Call(name, args, value["result"], value["args_after"], value["returned_an_argument"])

    @staticmethod
    def _no_raise(outcome: Call) -> Call:
        if outcome.raised is not None:
            raise Failure(f"{outcome.text()} raised {outcome.raised.sentence()}",
                          outcome.counterexample(None, f"raised {outcome.raised.type}"), status="error")
        return outcome

    # -- random examples ----------------------------------------------------------
    def forall(self, *strategies, examples: int | None = None):
        """Decorator: run the test now on seeded random examples; the shrunk failure propagates."""

        def run(test):
            rule_seed = int.from_bytes(hashlib.sha256(f"{self.seed}/{self.task_id}/{test.__name__}".encode()).digest()[:8], "big")
            configured = settings(
                max_examples=examples or self.examples,
                database=None,
                deadline=None,
                derandomize=False,
                report_multiple_bugs=False,
                print_blob=False,
                verbosity=Verbosity.quiet,
                phases=[Phase.explicit, Phase.generate, Phase.shrink],
                suppress_health_check=list(HealthCheck),
            )
            property_test = seed(rule_seed)(configured(given(*strategies)(test)))
            try:
                property_test()
            except Flaky as exc:
                raise _first_failure(exc) from None
            return test

        return run


def _first_failure(group: BaseException) -> BaseException:
    """A flaky learner function: report its first failure, else say it is inconsistent."""
    for inner in getattr(group, "exceptions", ()):
        if isinstance(inner, (Failure, Abort)):
            return inner
    return Failure("your function gave different answers to the same call: it must depend only on its arguments")

