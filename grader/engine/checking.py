"""Rules, checked on random examples: the vocabulary every task is written in.

A task is a list of rules. A rule draws examples with Hypothesis (seeded, so a
report can be repeated), calls the learner's code through the child, and
states what it expected. A broken rule raises ``Failure``; Hypothesis shrinks
the example, and the smallest one becomes the learner's feedback.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import given, seed
from hypothesis.errors import Flaky

from grader.catalog import MODULES, PARTS
from grader.engine import bank
from grader.engine.costs import RuleCost
from grader.engine.remote import SCENARIOS, run_scenario
from grader.engine.showing import jsonable, show
from grader.i18n import _
from grader.reports.report import GRADER_ERROR, grader_failed
from grader.sandbox.allowance import Allowance
from grader.sandbox.session import ChildFailed, LoadFailed, MissingName
from grader.wire import Raised

__all__ = ["Failure", "Abort", "BUDGETS", "Budget", "Call", "Checker", "Counterexample", "Raised", "describe", "no_raise"]


# A call limit once a task's code has run past its limit: every correct call here takes milliseconds.
_SHORT_LEASH_S = 0.25
_SCENARIO_CALLS = 2  # a scenario's allowance, in calls' (Checker.probe)


@dataclass(frozen=True)
class Counterexample:
    """The smallest example that breaks a rule, as the report shows it: the learner's call and both answers."""

    call: str
    args: list
    expected: object
    got: object

    def report(self) -> dict:
        return {"call": self.call, "args": jsonable(self.args), "expected": jsonable(self.expected), "got": jsonable(self.got)}


class Failure(Exception):
    """A rule broken on one example; Hypothesis shrinks it. ``status``: failed or error."""

    def __init__(self, feedback: str, counterexample: Counterexample | None = None, status: str = "failed"):
        super().__init__(feedback)
        if counterexample is not None and not isinstance(counterexample, Counterexample):
            raise TypeError(f"a counterexample is a Counterexample, not {type(counterexample).__name__}")
        self.feedback = feedback
        self.counterexample = counterexample
        self.status = status


def no_raise(got, what: str | Callable[[], str], *, hint: str = "", example: Counterexample | None = None):
    """``got``, unless it says the learner's code raised: then the rule fails with status error.

    The one way a learner's exception becomes feedback: ``"<what> raised
    KeyError: 'x' (at agstate/board.py, line 12: ...)[; <hint>]"``. ``what`` is
    the learner's call in their words, or a function that writes them (called
    only then: most calls do not raise, and a rule makes thousands);
    ``example``'s ``got`` becomes ``"raised KeyError"``.
    """
    if isinstance(got, Raised):
        if example is not None:
            example = Counterexample(example.call, example.args, example.expected, f"raised {got.type}")
        words = what() if callable(what) else what
        said = _("{call} raised {error}").format(call=words, error=got.sentence())
        raise Failure(f"{said}{'; ' + hint if hint else ''}", example, status="error")
    return got


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

    def counterexample(self, expected, got=None) -> Counterexample:
        return Counterexample(self.name, self.args, expected, self.result if got is None else got)


@dataclass(frozen=True)
class Budget:
    """A rule's examples: --examples * ``times`` // ``divisor`` (0: none of them), at least ``floor``."""

    divisor: int
    floor: int
    why: str
    times: int = 1

    def of(self, examples: int) -> int:
        return max(self.floor, examples * self.times // self.divisor if self.divisor else 0)


# What one example costs decides how many a rule draws: a reducer call costs microseconds, a graph run
# milliseconds, a killed writer or a crashed agent run tens of milliseconds. The default: every example.
BUDGETS = {
    "call": Budget(1, 1, "a call of the learner's function"),
    "table": Budget(1, 60, "a decision table: every row's shape, however small --examples is"),
    "payload": Budget(3, 10, "the reducer on a hostile payload"),
    "fold": Budget(1, 5, "a pure fold over a short log: microseconds a prefix", times=3),
    "store": Budget(1, 5, "a few store operations on a fresh store, in memory or in a file"),
    "sequence": Budget(4, 6, "a sequence of board updates, or a refund graph run"),
    "refund": Budget(4, 8, "a refund graph run in several orders"),
    "retry": Budget(2, 3, "a log written, then re-sent whole"),
    "kill": Budget(10, 3, "a writer killed mid-append"),
    "resume": Budget(10, 4, "an agent run, crashed and resumed"),
    "invoice": Budget(15, 4, "the invoice graph, crashed and resumed on a checkpointer"),
    "graph": Budget(20, 3, "a graph run: random supersteps, parallel writers"),
    "run": Budget(30, 2, "a full run of the learner's agent graph with a checkpointer"),
    "few": Budget(0, 5, "a handful of fixed-size cases"),
    "threads": Budget(0, 3, "three cases: racing threads or processes, or a whole graph on a checkpointer"),
}


class Checker:
    """A task's access to the learner's child, its seed, its example count and its time budget."""

    def __init__(self, session, task_id: str, seed_value: int, examples: int, deadline: float, call_limit: float = 5.0,
                 shrink: bool = True):
        self.session = session
        self.shrink = shrink  # False: a broken rule's first failing example stands (the same verdict, unshrunk)
        self.call_limit = call_limit  # one call or graph run: milliseconds when correct
        self.task_id = task_id
        self.seed = seed_value
        self.examples = examples
        # The task's time is the learner's: it runs while the learner's code is asked something (a probe, a batch,
        # a scenario). The grader's own work between two asks (drawing, judging, Hypothesis shrinking) moves the
        # deadline on, so a loaded machine that slows the grader never turns a verdict into a timeout.
        self.deadline = deadline
        self._answered = time.monotonic()  # when the learner's code last answered
        # request -> answer, for the whole task: rules asking the same question share one answer.
        self._known = {}
        self._batching = False  # replaying banked examples: probes are recorded, then sent in batches
        self._requests = {}
        self._strategies = {}  # example-set name -> what it draws from (bank.Key)
        # The rule being checked: its cases, and (grader.engine.costs) the seconds spent drawing and shrinking.
        self.cost = RuleCost()
        self.shrinking_waited = 0.0  # of the shrinking's seconds, those spent waiting on the child

    def budget(self, kind: str) -> int:
        """Random examples for a rule whose example costs ``kind`` (``BUDGETS``), from this run's --examples."""
        return BUDGETS[kind].of(self.examples)

    # -- talking to the child -------------------------------------------------
    def probe(self, name: str, *args, limit: float | None = None):
        """Run a probe; a stub, a missing name, a crash or the time budget abort the rule."""
        # The request's identity: the grader's own plain data (no learner object), whose repr tells apart what the
        # wire does (a tuple from a list, True from 1, key order), in C: a replayed test asks again each round.
        key = f"{name}{args!r}"
        if key in self._known:  # fetched already, by a batch or an earlier example
            return self._settle(self._known[key])
        # A probe with a limit of its own (a race, a whole graph in many orders) is asked on its own, now: a batch's
        # allowance is about one quick call's, and a batch that runs past it is asked again one call at a time.
        # A scenario (grader.engine.remote) runs here, calling the learner's code as it goes: it is never batched.
        in_the_grader = name in SCENARIOS
        if self._batching and limit is None and not in_the_grader:
            self._requests[key] = (name, list(args))
            raise _Pending()
        remaining = self._time_left()
        if remaining <= 0:
            raise Abort("timeout", _("this task ran out of time before all its rules were checked"))
        # A scenario is many round trips to the learner's process (a graph run: a call per node and reducer), each
        # waiting for a core on a loaded machine: twice one call's allowance, never a verdict on a correct run.
        allowed = min(remaining, limit or (_SCENARIO_CALLS * self.call_limit if in_the_grader else self.call_limit))
        doing = lambda: _("running {call}").format(call=self.describe(name, args))  # noqa: E731
        try:
            if in_the_grader:
                value = run_scenario(name, self.session, list(args), Allowance(allowed), doing)
            else:
                value = self.session.probe(name, *args, timeout=allowed, doing=doing)
        except ChildFailed as exc:
            if exc.status == "timeout":
                # This task's code can loop: its later rules are still checked, on a short leash.
                self.call_limit = min(self.call_limit, _SHORT_LEASH_S)
                raise Abort("timeout", _("{call} did not finish within {seconds:.1f} s (an endless loop, a wait for a lock "
                                         "never released, or far too slow)").format(call=self.describe(name, args),
                                                                                     seconds=allowed)) from None
            raise Abort(exc.status, grader_failed(exc.message) if exc.status == GRADER_ERROR else exc.message) from None
        except LoadFailed as exc:
            raise Abort("error", _("your module failed to import again: {error}").format(error=exc)) from None
        finally:
            self._answered = time.monotonic()
        self._known[key] = value
        return self._settle(value)

    def _time_left(self) -> float:
        """The task's seconds left for the learner's code, the grader's work since its last answer not counted."""
        now = time.monotonic()
        self.deadline += now - self._answered
        self._answered = now
        return self.deadline - now

    def describe(self, name: str, args: tuple) -> str:
        """``describe``, naming this task's module."""
        return describe(name, args, f"agstate/{MODULES[self.task_id.split('.', 1)[0]]}.py")

    @staticmethod
    def _settle(value):
        """Turn a stub or a missing name into the rule's verdict; pass anything else on."""
        if isinstance(value, MissingName):
            raise Abort("error", _("{name}: define it as the spec says (see the module's docstrings)").format(name=value))
        if isinstance(value, Raised) and value.is_a("NotImplementedError"):
            raise Abort("not_implemented", value.message or _("not implemented yet"))
        return value

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
            no_raise(outcome.raised, outcome.text(), example=outcome.counterexample(None))
        return outcome

    # -- examples -------------------------------------------------------------------
    def each(self, cases):
        """Decorator: run the test now on hand-picked ``cases`` (argument tuples), in order, as a loop would.

        The first that fails is the rule's failure, as given (a hand-picked case
        is small already: nothing is shrunk). Their probes go to the child in
        batches, as ``forall``'s do; and a checker that only draws
        (``grader.engine.predraw``) skips them and draws the rule's random examples.
        """
        cases = [tuple(case) for case in cases]

        def run(test):
            if self._replay(test, cases) is not None:
                for case in cases:  # again in order, on the answers known: the failure a plain loop would meet first
                    test(*case)
            return test

        return run

    def forall(self, *strategies, examples: int | None = None, first: tuple | None = None):
        """Decorator: run the test now on the rule's seeded examples; a shrunk failure propagates.

        Fast path: every example's probes go to the child in a few batches
        (``_replay``). Only when an example fails does Hypothesis run the test
        again, one probe at a time, to find and shrink the smallest failure.
        ``first``: arguments of a hand-picked case, checked before all; when it
        fails, a failing random example is shrunk and shown instead (a smaller
        counterexample), and the hand-picked one only when none fails.
        """

        def run(test):
            failed_first = None
            if first is not None:
                self.cost.cases += 1
                try:
                    test(*first)
                except Failure as failure:  # reported only if no random example, shrunk, fails too
                    failed_first = failure
            key = self.bank_key(test, examples)
            self._same_strategies(key, strategies)
            drawing = time.monotonic()
            cases = bank.examples(key, strategies)
            self.cost.drawing += time.monotonic() - drawing
            first_failure = self._replay(test, cases)
            if first_failure is None:
                if failed_first is not None:
                    raise failed_first
                return test
            if not self.shrink and isinstance(first_failure, Failure):  # a batch that did not come back: asked again below
                raise first_failure

            def example(case):
                return test(*case)

            # Same seed and settings as the bank: Hypothesis meets the same examples (their answers
            # are known, so only the shrinking asks the child anything new) and shrinks the failure.
            property_test = seed(key.seed)(bank.rule_settings(key.count, shrink=True)(given(bank.cases(strategies))(example)))
            waited, began = self.session.waited, time.perf_counter()
            try:
                property_test()
            except Flaky as exc:
                raise _first_failure(exc) from None
            finally:
                self.cost.shrinking += time.perf_counter() - began
                self.shrinking_waited += self.session.waited - waited
            if isinstance(first_failure, Failure):
                raise first_failure  # Hypothesis did not meet it again (a learner function that is not pure)
            return test

        return run

    def bank_key(self, test, examples: int | None) -> bank.Key:
        """The examples ``forall`` draws for ``test``: its task, its name, this run's seed, its count."""
        return bank.Key(self.task_id, test.__name__, self.seed, examples or self.examples)

    def _same_strategies(self, key: bank.Key, strategies: tuple) -> None:
        """Refuse two tests of one task that share a name (and so their examples) but draw differently."""
        drawn_from = repr(strategies)
        known = self._strategies.setdefault(key.name, drawn_from)
        if known != drawn_from:
            raise RuntimeError(f"{key.task}: two tests named {key.name!r} draw from different strategies; "
                               "rename one (tests of one name share their examples)")

    def _replay(self, test, cases: list[tuple]) -> BaseException | None:
        """Run ``test`` on every case with batched probes; None when all pass.

        Each round runs the tests that still wait for answers; a probe without
        an answer records its request and stops that test (``_Pending``). The
        round's requests go to the child in one batch; tests that depend on
        earlier answers (reducer laws) take a further round. Returns the first
        ``Failure`` met, or ``ChildFailed`` when a batch did not come back (an
        endless loop or a crash: found again one call at a time).
        """
        waiting = list(range(len(cases)))
        self._batching = True
        ran = len(cases)  # the first round starts every case in order; one failing there stops the rest
        try:
            first_round = True
            while waiting:
                self._requests = {}
                still = []
                for index in waiting:
                    try:
                        test(*cases[index])
                    except _Pending:
                        still.append(index)
                    except Failure as failure:
                        if first_round:
                            ran = index + 1
                        return failure
                if self._requests and not self._answer_batch():
                    return ChildFailed("crashed", _("a batch of checks did not come back"))
                waiting, first_round = still, False
            return None
        finally:
            self._batching = False
            self.cost.cases += ran

    def _answer_batch(self) -> bool:
        """Send the recorded requests in one batch; False when the child could not answer them all."""
        remaining = self._time_left()
        keys = list(self._requests)
        # About one call's limit: a loop in one example must leave time to find it on its own.
        allowed = max(0.0, min(remaining / 2, self.call_limit + 0.005 * len(keys)))
        try:
            replies = self.session.batch([self._requests[k] for k in keys], timeout=allowed)
        except (ChildFailed, LoadFailed):
            return False
        finally:
            self._answered = time.monotonic()
        self._known.update(zip(keys, replies))
        return True


def describe(name: str, args: tuple, module: str | None = None) -> str:
    """The learner's call a probe stands for, for a timeout or a crash: a generic probe's (``grader.child.generic``)
    from its arguments, a part's from its descriptor's ``calls``; ``module``: the part's, ``agstate/state.py``."""
    if name in ("call", "call_catching"):
        return f"{args[0]}({', '.join(show(a) for a in args[1])})"
    if name == "call_made":
        return f"{args[0]}({', '.join(show(a) for a in args[1])})({', '.join(show(a) for a in args[2])})"
    if name == "attr":
        return _("reading {name} from {module}").format(name=args[0], module=module or _("your module"))
    if name == "channels":
        return f"StateGraph({args[0]})"
    for part in PARTS:
        if name in part.calls:
            return part.calls[name].format(*[str(a) for a in args[:1]])
    raise KeyError(f"probe {name!r} is in no part's calls (grader/parts/<part>/__init__.py)")


class _Pending(BaseException):
    """A replayed test asked for an answer not fetched yet (a BaseException: tests never catch it)."""


def _first_failure(group: BaseException) -> BaseException:
    """A flaky learner function: report its first failure, else say it is inconsistent."""
    for inner in getattr(group, "exceptions", ()):
        if isinstance(inner, (Failure, Abort)):
            return inner
    return Failure(_("your function gave different answers to the same call: it must depend only on its arguments"))

