"""Messages are true: each corrected message, asserted on the mutant that draws it, on two seeds.

The mutation tests check that a bug loses exactly its tasks; here the words
matter. Each row is a message a learner was once told wrongly (a reviewer's
report, or the doc audit), with the mutant that draws it and what it must
say now. A message that drifts back to its old, misleading words fails here.
"""

import re

import pytest
from support.corpus import Corpus

from grader.engine.runner import grade_submission

pytestmark = pytest.mark.part

STATE, BOARD, EVENTS, BRANCHES = (Corpus(part) for part in ("state", "board", "events", "branches"))
MESSAGES = [
    # A key's merge rule failing inside LangGraph: the smallest graph and where the error is, not only the TypeError.
    (STATE, "trace_operator_add", "state.append",
     r"^a graph with step 1: '\w+' writes .+ raised TypeError: can only concatenate list .+; the error is in "
     r"State\.trace's merge rule"),
    # A reducer raising in a sequence: the step and the learner's line, not the whole list of updates.
    (BOARD, "raises_on_garbage", "board.sequence",
     r"^at step \d+, board_reducer\(.+\) raised BoardError: .+ \(at agstate/board\.py, line \d+: .+\); a reducer never raises"),
    # A sequence that breaks on the hand-picked tour is shrunk all the same: a few steps, not the tour's eight.
    (BOARD, "equal_copy_on_reject", "board.sequence", r"^at step [1-3], board_reducer\("),
    # A stale card_count: the only difference is the "(n)", so the message says what it is.
    (BOARD, "forgets_card_count", "board.move",
     r"has card_count \d+ \(the number in brackets\) but holds \d+ card\(s\): card_count is derived from cards"),
    # Mutating current and returning it: said so, not "returned current itself, as if the update were invalid".
    (BOARD, "mutates_current", "board.move", r"changed current and returned it; build a new board"),
    # A CaseStream that cannot be built: named, with its line; not a grader error, not "after another resolver committed".
    # A retry's stored ts: why it is returned though never compared, not "same ts (ts ... is never compared)".
    (EVENTS, "non_idempotent_append", "events.idempotent",
     r"a retry returns what is stored, its ts included \(ts is the store's clock, so it is not part of what makes two "
     r"appends the same event; the k-th ts your store set is shown as 1700000000\.0 \+ k\)"),
    # Counts in English: "1 event", "1 acknowledgement", never "1 events".
    (EVENTS, "never_commits", "events.durable",
     r"^kill #\d+: a writer appending (1 event|\d+ events) from seq \d+, killed after (1 acknowledgement|\d+ acknowledgements)"),
    # An exception in the invoice graph: the invoke that raised, the key and the learner's line, not "gave 'KeyError'".
    (EVENTS, "nodes_bind_late", "events.graph",
     r"invoke\(\{'task_id': 'inv-1', 'customer': .+\}, config\) raised KeyError: '\w+' \(at agstate/events\.py, line \d+: "),
    # A payload equal in Python but not in JSON: why it is another event, not only "expected ConcurrencyError".
    (EVENTS, "payload_compared_with_eq", "events.concurrency",
     r"== \{'n': 1\} in Python \(True == 1\), but as JSON it is another payload, so another event; compare events with "
     r"same_content"),
    # A transaction left open: the append that raised says what and where, not just 'OperationalError'.
    (EVENTS, "no_rollback", "events.idempotent",
     r"the append of seq \d+ raised OperationalError: cannot start a transaction within a transaction "
     r"\(at agstate/events\.py, line \d+: "),
    # A decision taken where the docstring wants a conflict: the missing conflict is named, not only decision None.
    (BRANCHES, "contradiction_decided", "branches.order_independent",
     r"and recorded the conflicts \{\} \(kind: \[\(actor, type\)\]\); expected \{'contradictory_decisions': .+"
     r"a case with a conflict is not decided"),
    # merge_evidence's arguments by their names, left and right, not a reducer's old and new.
    (BRANCHES, "merge_mutates_left", "branches.merge_evidence", r"changed its argument left to "),
    (BRANCHES, "stream_sets_its_version_property", "branches.optimistic",
     r"^CaseStream\('[^']*'\) raised AttributeError: .*no setter \(at agstate/branches\.py, line \d+: self\.version = 0\); "
     r"nothing could be appended to it"),
]  # The same mutant passes branches.conflicts: its resolvers are judged on the grader's stream (issue 29).


@pytest.mark.parametrize("seed", [11, 4242])
@pytest.mark.parametrize(("corpus", "name", "task_id", "said"), MESSAGES, ids=[f"{m[1]}-{m[2]}" for m in MESSAGES])
def test_a_corrected_message_says_what_happened(corpus, name, task_id, said, seed, tmp_path):
    mutant = corpus.mutant(name)
    report = grade_submission(str(corpus.build_submission(mutant, tmp_path / name)), [task_id], seed, examples=40, timeout=20)
    # The task's feedback (its first failing rule in full) and every rule's own, as the scorecard shows them.
    feedback = "\n".join([report["tasks"][0]["feedback"], *(rule.get("feedback", "") for rule in report["tasks"][0]["rules"])])
    assert re.search(said, feedback), feedback
    assert "as if the update were invalid" not in feedback and "after another resolver committed" not in feedback
    assert not re.search(r"(?<!\d)1 (events|acknowledgements|tools)\b", feedback), feedback
    assert "changed its argument old" not in feedback or task_id.startswith("state."), feedback
