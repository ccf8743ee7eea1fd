"""The grading engine on its own, in seconds: the wire, the example bank, forall's replay and shrinking.

The learner's process is replaced by ``FakeSession``, which answers the
"call" probe with a plain Python function: what the engine does with the
answers (batching, caching, shrinking, reporting) is what is tested here.
"""

import math
import time

import pytest
from hypothesis import strategies as st

from grader import wire
from grader.engine import bank
from grader.engine.checking import Abort, Checker, Counterexample, Failure, no_raise
from grader.engine.showing import contrast, show
from grader.wire import Raised

pytestmark = pytest.mark.unit


class FakeSession:
    """Answers ``call`` probes with ``functions[name](*args)``, counting round trips."""

    def __init__(self, **functions):
        self.functions = functions
        self.probes = self.batches = 0
        self.waited = 0.0  # what grader.engine.costs reads of a session

    def _answer(self, name, args):
        assert name == "call"
        function, call_args = self.functions[args[0]], args[1]
        try:
            result = function(*call_args)
        except NotImplementedError as exc:
            return Raised("NotImplementedError", ("NotImplementedError",), str(exc))
        return {"result": wire.decode(wire.encode(result)), "args_after": call_args, "returned_an_argument": []}

    def probe(self, name, *args, timeout, doing=None):
        self.probes += 1
        return self._answer(name, list(args))

    def batch(self, requests, timeout):
        self.batches += 1
        return [self._answer(name, list(args)) for name, args in requests]


def checker(session, task="engine.demo", seed=7, examples=60) -> Checker:
    return Checker(session, task, seed, examples, deadline=time.monotonic() + 60)


# -- the wire ---------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [
    None, True, 0, -3, 2**70, 1.5, "", "ünï\u2028code", [1, [2, [3]]], (1, "a"), {"k": [1, (2,)]}, {1: "int key"},
    {3, 1}, frozenset({"a"}), [(), {}, set()],
    # A dict that looks like a tag, or holds the tag's key, is data: it crosses as a tagged dict, unchanged.
    {"$": "tuple", "items": [1]}, {"$": None}, {"a": {"b": {"$": "opaque"}}},
    # orjson writes integers up to 64 bits; beyond, the message is written by json (orjson would read a float).
    [2**64 - 1, -2**63], {"big": [-2**63 - 1]},
    # A string that is not valid UTF-8 (a lone surrogate, which a learner's function may return) is written by json too.
    "x\udc80y", {"k": ["\ud800"]},
])
def test_plain_data_crosses_the_wire_unchanged(value):
    back = wire.decode(wire.loads(wire.dumps(wire.encode(value))))
    assert back == value and type(back) is type(value)


def test_non_finite_floats_cross_as_floats():
    back = wire.decode(wire.encode([math.inf, -math.inf, math.nan]))
    assert back[:2] == [math.inf, -math.inf] and math.isnan(back[2])


class _EqualsAnything(list):
    def __eq__(self, other):
        return True


class _BadRepr:
    def __repr__(self):
        raise RuntimeError("no")


@pytest.mark.parametrize("value", [_EqualsAnything([1]), _BadRepr(), object()])
def test_anything_that_is_not_exact_plain_data_arrives_as_an_opaque_that_equals_nothing(value):
    back = wire.decode(wire.encode(value))
    assert isinstance(back, wire.Opaque) and back != back and back != [1]
    assert type(value).__name__ in repr(back)


def test_nesting_and_size_are_bounded():
    deep = []
    for _ in range(200):
        deep = [deep]
    encoded = wire.encode(deep)
    for _ in range(61):
        encoded = encoded[0]
    assert encoded["$"] == "opaque"
    with pytest.raises(ValueError, match="larger than"):
        wire.loads(b"0" * (wire.MAX_MESSAGE_BYTES + 1))
    with pytest.raises(ValueError, match="unknown wire tag"):
        wire.decode({"$": "pickle", "data": "..."})
    with pytest.raises(ValueError):  # a reply that says json wrote it, and is not JSON: refused as any garbage is
        wire.loads(b"J{not json")


# -- the bank ---------------------------------------------------------------------------------
def test_a_rule_draws_the_same_examples_for_the_same_seed_and_others_for_another():
    strategies = (st.lists(st.integers()),)
    first = bank.examples(bank.Key("engine.demo", "a", 1, 30), strategies)
    bank._BANK.pop("engine.demo/a/1/30")  # drawn again from the seed, not read from the bank
    again = bank.examples(bank.Key("engine.demo", "a", 1, 30), strategies)
    other = bank.examples(bank.Key("engine.demo", "a", 2, 30), strategies)
    assert first == again and first != other and len(first) == 30
    assert bank.Key("engine.demo", "a", 1, 30).seed != bank.Key("engine.demo", "b", 1, 30).seed
    assert str(bank.Key("engine.demo", "a", 1, 30)) == "engine.demo/a/1/30"


def test_a_fork_that_sees_one_seed_holds_only_its_examples_and_frees_none():
    """``bank.see_only`` (a warm grader's fork grading one student): only that seed's examples are reachable, and
    the others are set aside, not freed, so that the fork writes no page of theirs."""
    strategies = (st.integers(),)
    mine, theirs = bank.Key("engine.demo", "seen", 5, 5), bank.Key("engine.demo", "seen", 6, 5)
    bank.examples(mine, strategies)
    drawn = bank.examples(theirs, strategies)
    whole, new = bank._BANK, set(bank._NEW)
    try:
        bank.see_only([5])
        assert str(mine) in bank._BANK and bank.seeds() == [5] and str(theirs) not in bank.export()
        assert bank._SET_ASIDE[-1] is whole and whole[str(theirs)] is drawn  # set aside whole: not a write to it
    finally:
        bank._BANK = whole  # this test's process goes on grading (it is no fork)
        bank._SET_ASIDE.remove(whole)
        bank._NEW.update(new)


def test_banks_travel_between_processes_as_plain_data():
    strategies = (st.tuples(st.text(), st.integers()),)
    key = bank.Key("engine.demo", "travel", 11, 10)
    drawn = bank.examples(key, strategies)
    exported = bank.export()
    assert str(key) in exported
    wire.dumps(exported)  # plain JSON data
    bank._BANK.pop(str(key))
    bank.merge({str(key): exported[str(key)]})
    assert bank.examples(key, strategies) == drawn


def test_two_tests_of_one_name_must_draw_from_the_same_strategies():
    check = Checker(FakeSession(learner_sort=sorted), "engine.demo", 1, 5, time.monotonic() + 30)

    @check.forall(st.lists(st.integers()))
    def shared(items):
        pass

    @check.forall(st.lists(st.integers()))  # the same examples again: fine
    def shared(items):  # noqa: F811 -- the point of the test
        pass

    with pytest.raises(RuntimeError, match="two tests named 'shared' draw from different strategies"):
        @check.forall(st.text())
        def shared(text):
            pass


def test_a_learner_exception_crosses_the_boundary_as_one_type():
    try:
        {}["missing"]
    except KeyError as exc:
        raised = wire.Raised.of(exc, None, attrs=["args", "nothing"])
    back = wire.decode(wire.loads(wire.dumps(wire.encode({"outcome": [raised]}))))["outcome"][0]
    assert back == raised and back.is_a("LookupError") and back.attrs == {"args": ("missing",), "nothing": "<missing>"}
    assert back.sentence() == "KeyError: 'missing'"
    with pytest.raises(Failure, match=r"^d\['missing'\] raised KeyError: 'missing'; use d.get$") as caught:
        no_raise(back, "d['missing']", hint="use d.get", example=Counterexample("d.get", ["missing"], None, None))
    assert caught.value.status == "error" and caught.value.counterexample.got == "raised KeyError"
    assert no_raise({"ok": 1}, "anything") == {"ok": 1}


# -- forall: replay, shrinking, verdicts ------------------------------------------------------
def _sorts(check):
    @check.forall(st.lists(st.integers()))
    def sorted_like_python(items):
        got = check.value("learner_sort", items)
        if got.result != sorted(items):
            raise Failure(f"{got.text()} returned {show(got.result)}", got.counterexample(sorted(items)))


def test_a_correct_function_passes_with_every_example_sent_in_batches():
    session = FakeSession(learner_sort=sorted)
    _sorts(checker(session))
    assert session.probes == 0 and session.batches >= 1


def test_a_failure_is_shrunk_to_the_smallest_counterexample():
    def keeps_duplicates_out(items):
        return sorted(set(items))

    with pytest.raises(Failure) as failed:
        _sorts(checker(FakeSession(learner_sort=keeps_duplicates_out)))
    assert failed.value.counterexample.report() == {"call": "learner_sort", "args": [[0, 0]], "expected": [0, 0], "got": [0]}


def test_the_same_seed_gives_the_same_counterexample_and_another_seed_may_not_need_to():
    def wrong_above_ten(items):
        return sorted(items) if all(i <= 10 for i in items) else list(items)

    found = []
    for _ in range(2):
        with pytest.raises(Failure) as failed:
            _sorts(checker(FakeSession(learner_sort=wrong_above_ten), seed=3))
        found.append(failed.value.counterexample)
    assert found[0] == found[1]
    assert found[0].got != found[0].expected and max(found[0].args[0]) == 11  # shrunk to the boundary


def test_a_stub_aborts_the_rule_as_not_implemented():
    def stub(items):
        raise NotImplementedError("engine.demo: learner_sort() is not written yet")

    with pytest.raises(Abort) as aborted:
        _sorts(checker(FakeSession(learner_sort=stub)))
    assert aborted.value.status == "not_implemented" and "not written yet" in aborted.value.feedback


def test_a_function_that_is_not_pure_is_still_caught_with_an_answer_it_really_gave():
    calls = []

    def moody(items):
        calls.append(1)
        return sorted(items) if len(calls) % 2 else [*sorted(items), 0]

    with pytest.raises(Failure) as failed:
        _sorts(checker(FakeSession(learner_sort=moody)))
    shown = failed.value.counterexample
    assert shown.got == [*shown.expected, 0]  # each call is asked once per task: its answer is kept


def test_the_time_budget_stops_a_task():
    check = checker(FakeSession(learner_sort=sorted))
    check.deadline = time.monotonic() - 1
    with pytest.raises(Abort) as aborted:
        check.value("learner_sort", [1])
    assert aborted.value.status == "timeout"


def test_only_the_learners_calls_spend_the_tasks_time(monkeypatch):
    """A loaded machine slows the grader's own drawing, judging and shrinking: that is never a timeout of the task.

    The clock is the test's: 100 s of the grader's work before each ask, 4 s in each of the learner's calls, a 10 s task.
    """
    from grader.engine import checking

    now = [0.0]
    monkeypatch.setattr(checking.time, "monotonic", lambda: now[0])

    def slow_sort(items):
        now[0] += 4.0
        return sorted(items)

    check = Checker(FakeSession(learner_sort=slow_sort), "engine.demo", 7, 60, deadline=10.0)
    for n in range(3):  # 8 s of the learner's calls before the third: it may start
        now[0] += 100.0
        assert check.value("learner_sort", [n, 0]).result == [0, n]
    now[0] += 100.0
    with pytest.raises(Abort) as aborted:  # 12 s spent
        check.value("learner_sort", [3])
    assert aborted.value.status == "timeout"


def test_a_value_written_as_code_in_feedback_shows_its_contents_as_any_values():
    class Wrapped:  # a part's Overwrite(...) in feedback (grader/parts/pauses/checks.py)
        def __init__(self, value):
            self.value = value

        def shown_as(self, show_inner):
            return f"Overwrite({show_inner(self.value)})"

    rows = [{"qty": 1, "text": "a"}, {"qty": 1, "text": "b"}]
    assert show({"lines": Wrapped(rows)}) == f"{{'lines': Overwrite({rows!r})}}"  # not cut at 60 characters as an object
    assert show(Wrapped(list(range(20)))) == "Overwrite([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ...])"  # cut as a list is


def test_every_budget_is_named_and_scales_with_examples():
    from grader.engine.checking import BUDGETS

    for name, budget in BUDGETS.items():
        assert budget.why and budget.of(1) >= budget.floor >= 1, name
        assert budget.of(800) >= budget.of(80), name
    assert BUDGETS["graph"].of(80) == 4 and BUDGETS["run"].of(80) == 2 and BUDGETS["table"].of(20) == 60


def test_nothing_that_differs_between_runs_crosses_the_boundary():
    class Board:
        pass

    try:
        raise ValueError(f"bad board {Board()!r}")
    except ValueError as exc:
        raised = wire.Raised.of(exc)
    assert " at 0x" not in raised.message and raised.message.startswith("bad board <")
    assert " at 0x" not in wire.decode(wire.encode(Board())).text


def test_a_seed_draws_the_same_examples_whatever_else_is_loaded(tmp_path, monkeypatch):
    """Hypothesis would mix literals of loaded local modules into its draws: a report would depend on imports."""
    strategies = (st.lists(st.text(max_size=12), max_size=6), st.integers())
    key = bank.Key("engine.demo", "constants", 5, 200)
    before = bank.examples(key, strategies)
    literals = "\n".join(f"NAME_{i} = 'zq-literal-{i}'\nNUMBER_{i} = {987_654 + i}" for i in range(40))
    (tmp_path / "module_with_literals.py").write_text(literals)
    monkeypatch.syspath_prepend(str(tmp_path))
    import module_with_literals  # noqa: F401 -- a local module full of literals, loaded after the first draw

    bank._BANK.pop(str(key))
    after = bank.examples(key, strategies)
    assert after == before
    assert not any("zq-literal" in text for case in after for text in case[0])


def test_a_long_difference_is_shown_where_it_is():
    expected = [f"item-{i}" for i in range(40)]
    got = [*expected[:-1], "ITEM-39"]
    shown_got, shown_expected = contrast(got, expected)
    assert "ITEM-39" in shown_got and "item-39" in shown_expected and shown_got.startswith("...")
    assert len(shown_got) < 90 and show(got) != shown_got  # show() alone cuts the difference away
    assert contrast([1, 2], [1, 3]) == ("[1, 2]", "[1, 3]")


# -- each: hand-picked cases ------------------------------------------------------------------
def test_hand_picked_cases_go_in_one_batch_and_the_first_failing_one_in_order_is_reported():
    def wrong_on_three(items):
        return sorted(items) if len(items) != 3 else list(items)

    session = FakeSession(learner_sort=wrong_on_three)
    check = checker(session)
    seen = []

    def sorted_like_python(items):
        seen.append(items)
        got = check.value("learner_sort", items)
        if got.result != sorted(items):
            raise Failure(f"{got.text()} returned {show(got.result)}", got.counterexample(sorted(items)))

    cases = [([2, 1],), ([3, 2, 1],), ([5, 4, 3, 2, 1],), ([9, 8, 7],)]
    with pytest.raises(Failure) as failed:
        check.each(cases)(sorted_like_python)
    assert failed.value.counterexample.args == [[3, 2, 1]]  # the first of the two failing, not shrunk
    assert session.probes == 0 and session.batches == 1
    passing = FakeSession(learner_sort=sorted)
    check = checker(passing)
    check.each(cases)(sorted_like_python)
    assert passing.batches == 1 and check.cost.cases == len(cases)


def test_drawing_ahead_skips_hand_picked_cases_and_draws_what_follows():
    from grader.engine import predraw as drawing

    check = drawing._DrawingChecker(drawing._NoLearner(), "engine.demo", 31337, 7, float("inf"))
    ran = []
    check.each([(1,)])(ran.append)
    check.forall(st.integers())(ran.append)
    assert ran == [] and len(bank._BANK[str(bank.Key("engine.demo", "append", 31337, 7))]) == 7
