"""Part D's reference, its tricky bits: what the notebooks and the grader rely on (collisions, laws, races,
resolution, the graph's order independence), pinned on the reference itself (fixed points: ``test_parts.py``).
"""

import itertools
import operator
import sys
import threading

import pytest
from support.paths import SOLUTIONS

from grader.child.serve import load_learner_module
from grader.parts.branches.model import model_classify, model_refund, table_rows

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def ref():
    """The reference ``agstate.branches``, loaded from solutions/ without leaving it in sys.modules."""
    saved = {name: module for name, module in sys.modules.items() if name == "agstate" or name.startswith("agstate.")}
    module = load_learner_module(SOLUTIONS, "branches")
    for name in [n for n in sys.modules if n == "agstate" or n.startswith("agstate.")]:
        del sys.modules[name]
    sys.modules.update(saved)
    sys.path.remove(str(SOLUTIONS))
    return module


# -- the grader's fixed points ---------------------------------------------------------------


# -- merge_evidence and write_once -------------------------------------------------------------
def test_collision_names_the_id_and_leaves_inputs(ref):
    left, right = [{"id": "pay", "amount": 10}], [{"id": "pay", "amount": 12}, {"id": "a", "x": 1}]
    with pytest.raises(ref.EvidenceCollision) as caught:
        ref.merge_evidence(left, right)
    assert caught.value.evidence_id == "pay" and isinstance(caught.value, ValueError)
    assert left == [{"id": "pay", "amount": 10}] and len(right) == 2
    assert ref.merge_evidence(right[1:], left + left) == [{"id": "a", "x": 1}, {"id": "pay", "amount": 10}]


def test_merge_laws_hold_and_operator_add_is_not_idempotent(ref):
    a, b, c = [{"id": "p"}], [{"id": "r"}, {"id": "p"}], [{"id": "e"}]
    merge = ref.merge_evidence
    assert merge(a, b) == merge(b, a)
    assert merge(merge(a, b), c) == merge(a, merge(b, c))
    assert merge(merge(a, b), b) == merge(a, b)
    assert operator.add(operator.add(a, b), b) != operator.add(a, b)


def test_write_once(ref):
    assert ref.write_once(None, "approved") == "approved"
    assert ref.write_once("approved", "approved") == "approved"
    with pytest.raises(ref.WriteOnceViolation) as caught:
        ref.write_once("approved", "rejected")
    assert (caught.value.old, caught.value.new) == ("approved", "rejected")


# -- the table ------------------------------------------------------------------------------
@pytest.mark.parametrize("row", range(len(table_rows())))
def test_every_row_of_the_table(ref, row):
    current, proposal = table_rows()[row]
    got = ref.classify_proposal(current, proposal)
    assert {k: got[k] for k in model_classify(current, proposal)} == model_classify(current, proposal)


def test_table_rows_cover_every_reason():
    reasons = {model_classify(*row)["reason"] for row in table_rows()}
    assert reasons == {None, "stale_revision", "payment_id_mismatch", "invalid_risk_level", "effect_already_applied",
                       "approval_conflicts_with_high_risk", "payment_not_confirmed", "amount_exceeds_payment",
                       "unknown_proposal_type"}


# -- optimistic concurrency and resolution ---------------------------------------------------------
def test_racing_appenders_one_winner(ref):
    stream = ref.CaseStream("R-1")
    barrier, outcomes = threading.Barrier(8), []

    def write(n):
        barrier.wait()
        try:
            outcomes.append(stream.append({"writer": n}, 0))
        except ref.StaleVersion as exc:
            outcomes.append((exc.expected, exc.actual))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes, key=str) == sorted([1] + [(0, 1)] * 7, key=str)
    assert stream.version == 1 and len(stream.events()) == 1


def test_a_resolver_that_loses_rereads_and_takes_the_winners_resolution(ref):
    stream = ref.CaseStream("R-1")
    conflict = ref.open_conflict({"case_id": "R-1", "revision": 1}, [{"event_id": "b"}, {"event_id": "a"}],
                                 "approval_conflicts_with_high_risk", "human override or rejection")
    assert conflict["proposals"] == ["a", "b"] and conflict["status"] == "open" and conflict["resolution"] is None

    class Racing:  # bob commits between alice's read and her append
        version = property(lambda self: stream.version)
        events = staticmethod(stream.events)

        def append(self, event, expected_version):
            if not stream.events():
                ref.resolve_conflict(stream, conflict, "reject_all", "bob", "risk-first")
            return stream.append(event, expected_version)

    alice = ref.resolve_conflict(Racing(), conflict, "a", "alice", "four-eyes")
    assert [e["actor"] for e in stream.events()] == ["bob"]
    assert alice["status"] == "resolved" and alice["resolution"]["actor"] == "bob"
    assert alice["resolution"]["rejected"] == ["a", "b"] and conflict["status"] == "open"


# -- the graph -----------------------------------------------------------------------------------
def _signals(**changes):
    return {"payment_id": "P-1", "payment_amount": 80, "risk_level": "low", "requested_amount": 50, "policy_ok": True,
            **changes}


def _fresh():
    return {"case_id": "R-9", "revision": 0, "payment_id": None, "payment_amount": None, "risk_level": None,
            "effects_applied": False, "decision": None}


@pytest.mark.parametrize("signals", [_signals(), _signals(risk_level="high"), _signals(payment_id=None),
                                     _signals(requested_amount=90), _signals(policy_ok=False)])
def test_graph_matches_the_model_and_every_order(ref, signals):
    from langgraph.checkpoint.memory import InMemorySaver

    calls = []
    effects = {name: (lambda name: lambda idempotency_key, case: calls.append(idempotency_key))(name)
               for name in ("send_email", "create_transfer")}
    graph = ref.build_refund_graph(effects, checkpointer=InMemorySaver())
    graph_input = {"case": _fresh(), "signals": signals}
    plain = graph.invoke(graph_input, {"configurable": {"thread_id": "plain"}})
    expected = model_refund(_fresh(), signals)
    assert plain["case"] == expected["case"] and sorted(plain["effects_done"]) == expected["effects_done"]
    assert sorted(calls) == expected["effects_done"]
    writes = {name: write for update in graph.stream(graph_input, {"configurable": {"thread_id": "w"}}, stream_mode="updates")
              for name, write in update.items()}
    for number, order in enumerate(itertools.permutations(["policy_check", "payment_lookup", "risk_review", "reply_draft"])):
        config = {"configurable": {"thread_id": f"order-{number}"}}
        graph.invoke(graph_input, config, interrupt_before=list(order))
        for name in [*order, order[0]]:
            graph.update_state(config, writes[name], as_node=name)
        assert graph.invoke(None, config) == plain, order
