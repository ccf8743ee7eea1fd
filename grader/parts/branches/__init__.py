"""Part D: parallel branches — ``agstate/branches.py``. Its folder: see ``grader.parts``."""

from grader.i18n import N_
from grader.parts.descriptor import Part, TaskSpec

PART = Part(
    name="branches",
    letter="D",
    title=N_("Parallel branches"),
    module="branches",
    first_notebook="20_blind_merge.ipynb",
    tasks=(
        TaskSpec("branches.merge_evidence", 12, "21_merge_evidence.ipynb",
                 "merge_evidence: union by id, sorted; collisions raise EvidenceCollision"),
        TaskSpec("branches.laws", 12, "22_reducer_laws.ipynb",
                 "merge_evidence is associative, commutative and idempotent on random evidence"),
        TaskSpec("branches.write_once", 10, "23_write_once.ipynb",
                 "write_once: set once, equal writes keep it, a different one raises"),
        TaskSpec("branches.optimistic", 14, "24_optimistic_concurrency.ipynb",
                 "CaseStream: expected_version; of racing appenders exactly one wins"),
        TaskSpec("branches.classify", 16, "25_classify_proposals.ipynb",
                 "classify_proposal follows the decision table, first matching rule wins"),
        TaskSpec("branches.conflicts", 12, "26_conflicts_as_data.ipynb",
                 "conflict records; resolving appends one event, never rewrites history, re-reads after StaleVersion"),
        TaskSpec("branches.order_independent", 14, "27_effects_once.ipynb",
                 "refund graph: decided by the table, same output in every order and on redelivery"),
        TaskSpec("branches.effects_once", 10, "27_effects_once.ipynb",
                 "effects run once per idempotency key, also on redelivery"),
    ),
    # What each probe stands for, in the learner's words: a timeout or a crash names this, never the probe.
    calls={
        "write_once_graph": "a graph whose key is reduced by write_once",
        "stream_script": "CaseStream.append(...)",
        "stream_race": "CaseStream.append(...) from racing writers",
        "resolve_interleaved": "resolve_conflict(...) while another resolver commits",
        "resolve_threads": "resolve_conflict(...) from several threads",
        "resolve_sequence": "resolve_conflict(...), called in turn",
        "refund_orders": "build_refund_graph(...) with the branches' writes delivered in every order",
        "refund_redelivered": "build_refund_graph(...) with a write delivered again",
    },
)
