"""Part D's documented sentences (solutions/agstate/branches.py) and the grader rule that checks each."""
from doc_rules import checked, explains

# The rules' sentences, once each: several documented sentences are checked by the same rule.
MERGE_UNION = "merge_evidence returns the union of both lists by id, sorted by id"
MERGE_COLLISION = "the same id with different content raises EvidenceCollision naming the id (its evidence_id)"
MERGE_NONE = "None counts as no evidence: merging None with a list gives that list's union, sorted by id"
MERGE_PURE = "merge_evidence returns a new list and never mutates its arguments"
LAW_COMMUTATIVE = "commutative: merge_evidence(a, b) == merge_evidence(b, a), so completion order cannot matter"
ONCE_FROM_NONE = "write_once(None, new) takes the new value"
ONCE_DIFFERENT = "a different value raises WriteOnceViolation carrying old and new"
ONCE_IN_GRAPH = "in a graph, writers of one value agree, a different value raises, a redelivered write changes nothing"
STREAM_APPENDS = "append at the current version returns the new version; events() lists copies, oldest first"
STREAM_STALE = "an append at any other version raises StaleVersion(expected, actual) and appends nothing"
STREAM_RACE = "threads racing to append at the same version: exactly one wins, the others get StaleVersion"
CLASSIFY_STALE = ("rule 1 comes first: an expected_revision other than the case's revision is a conflict "
                  "stale_revision with current_revision, whatever the proposal")
CLASSIFY_FACTS = ("evidence_added is accepted; payment_found conflicts with a different known payment id "
                  "(payment_id_mismatch); risk_assessed needs a level in RISK_LEVELS (else rejected invalid_risk_level)")
CLASSIFY_APPROVAL = ("an approval is checked in order: effect already applied, high risk (with required_inputs), "
                     "no payment id, amount above the payment; else accepted")
CLASSIFY_REJECTION = "a rejection conflicts only when effects were applied; any other type is rejected unknown_proposal_type"
CONFLICT_RECORD = ("open_conflict returns a record, never an error string: conflict_id, stream_id, status 'open', kind, "
                   "current_revision, proposals (their event ids, sorted), required_action, resolution None")
CONFLICT_IDS = "the same conflict always gets the same conflict_id; another kind gets another one"
CONFLICT_RESOLUTION = ("resolve_conflict appends one conflict_resolved event naming the conflict, the decision, "
                       "who (actor), which rule and what was rejected, and returns the record resolved")
CONFLICT_HISTORY = "resolving never rewrites history: earlier events and the conflict passed in stay as they were"
CONFLICT_ONCE = "a conflict is resolved once: resolving it again appends nothing and returns the first resolution"
RESOLVER_RACE = ("a resolver that loses the race re-reads the stream and decides again: "
                 "the conflict is resolved once, by the winner, never by a blind retry")
GRAPH_DECIDES = ("decide follows the table: facts first, then decisions against the case with the facts applied; "
                 "conflicts become records; a high-risk case is never approved")
GRAPH_EVERY_ORDER = "the output is the same in every completion order of the four branches"
PROPOSALS_MERGED = ("merge_proposals on its own: the union of two proposal lists by event_id, sorted by it, whichever "
                    "comes first and when one comes again")
GRAPH_PARALLEL = "the four branch nodes run in parallel, all in the same step"
REFUND_STATE = ("RefundState on its own: evidence merged by merge_evidence, proposals by merge_proposals; case, "
                "signals, conflicts, events and effects_done overwritten by their one writer")
DECIDE_ALONE = ("_decide on its own: facts first, then each decision against the case with the facts applied; one "
                "conflict record per kind; one accepted outcome and no conflict decides; the revision goes up by one")
GRAPH_BRANCH_WRITES = "the branch nodes publish only evidence and proposals: they never write the case, decide does"
EFFECTS_RUN = ("an approved refund runs each effect once with idempotency key f'{case_id}:{effect_name}' and the case; "
               "a refund not approved runs none")
EFFECTS_CONFIRMATION = "a redelivered approval_confirmed runs no effect again"

MERGE, LAWS, ONCE = "branches.merge_evidence", "branches.laws", "branches.write_once"
OPTIMISTIC, CLASSIFY, CONFLICTS = "branches.optimistic", "branches.classify", "branches.conflicts"
ORDER, EFFECTS = "branches.order_independent", "branches.effects_once"

TABLE = {
    # -- the module ---------------------------------------------------------------------------
    ("module", "Part D — parallel branches: merge what branches find, decide in one place, act once."):
        explains("the part's title and motto; each of its three clauses is a function's promise, checked there"),
    ("module", "A refund case fans out to four branches (policy check, payment lookup, risk review, reply draft)."):
        checked(ORDER, GRAPH_PARALLEL),
    ("module", "Branches publish *evidence* and *proposals*; they never write the case itself."):
        checked(ORDER, GRAPH_BRANCH_WRITES),
    ("module", "One node, ``decide``, classifies the proposals against the case and either decides or records a conflict."):
        checked(ORDER, GRAPH_DECIDES),
    ("module", "Effects (an email, a transfer) run once per idempotency key, however often a result is delivered."):
        checked(EFFECTS, EFFECTS_CONFIRMATION),
    ("module", "Notebooks: 20_blind_merge … 27_effects_once."):
        explains("a pointer to the part's notebooks"),
    ("module", 'Check with ``check("branches")``.'):
        explains("how to run the grader on this part"),
    # -- merge_evidence -------------------------------------------------------------------------
    ("EvidenceCollision", "Two pieces of evidence share an ``id`` but differ: nobody may pick one silently."):
        checked(MERGE, MERGE_COLLISION),
    ("merge_evidence", "Union of evidence records by ``id``, sorted by id (a LangGraph reducer)."):
        checked(MERGE, MERGE_UNION),
    ("merge_evidence", "The same id with identical content is kept once; the same id with different content raises "
                       "``EvidenceCollision`` naming the id."):
        # both halves are checked: "kept once" by the rule "the same id with identical content is kept once, ..."
        checked(MERGE, MERGE_COLLISION),
    ("merge_evidence", "``None`` counts as no evidence."):
        checked(MERGE, MERGE_NONE),
    ("merge_evidence", "Returns a new list; never mutates its arguments."):
        checked(MERGE, MERGE_PURE),
    ("merge_evidence", "Laws: associative, commutative, idempotent — so completion order and a redelivered branch result "
                       "cannot change the merged evidence."):
        # each law is its own rule of branches.laws (associative:, idempotent:); the commutative one is named here
        checked(LAWS, LAW_COMMUTATIVE),
    # also: through the graph, "the output is the same in every completion order ..." and "... delivered twice ..."
    ("merge_proposals", "Union of proposals by ``event_id``, sorted by it; the laws of ``merge_evidence``."):
        checked(ORDER, PROPOSALS_MERGED),
    # -- write_once ---------------------------------------------------------------------------------
    ("WriteOnceViolation", "A write-once value was already set to something else."):
        checked(ONCE, ONCE_DIFFERENT),
    ("write_once", "A reducer for a value set at most once: ``None`` takes ``new``; an equal ``new`` keeps ``old``."):
        # "an equal new keeps old": the rule "an equal value keeps the stored one (a redelivered write is harmless)"
        checked(ONCE, ONCE_FROM_NONE),
    ("write_once", "A different ``new`` raises ``WriteOnceViolation(old, new)``."):
        checked(ONCE, ONCE_DIFFERENT),
    ("write_once", "Laws: idempotent (a redelivered write changes nothing); commutative where it does not raise."):
        checked(ONCE, ONCE_IN_GRAPH),  # parallel writers in any order agree; a redelivered write changes nothing
    # -- classify_proposal -----------------------------------------------------------------------------
    ("classify_proposal", "Classify one proposal against the case: ``accepted``, ``rejected`` or ``conflict``."):
        checked(CLASSIFY, CLASSIFY_FACTS),
    ("classify_proposal", "``current``: ``revision``, ``payment_id``, ``payment_amount``, ``risk_level``, "
                          "``effects_applied``."):
        explains("describes the input case's keys; what classify_proposal does with them is the numbered rules below"),
    ("classify_proposal", "``proposal``: ``event_id``, ``type``, ``expected_revision``, ``actor``, ``payload``."):
        explains("describes the input proposal's keys; what classify_proposal does with them is the numbered rules below"),
    ("classify_proposal", 'Returns ``{"status": ..., "reason": None | str, ...}``; the first matching rule wins:'):
        checked(CLASSIFY, CLASSIFY_STALE),  # expect_verdict needs the reason key (None when accepted)
    ("classify_proposal", "1. ``expected_revision != revision`` → conflict ``stale_revision``, with ``current_revision``."):
        checked(CLASSIFY, CLASSIFY_STALE),
    ("classify_proposal", "2. ``evidence_added`` → accepted."):
        checked(CLASSIFY, CLASSIFY_FACTS),
    ("classify_proposal", '3. ``payment_found``: ``payload["payment_id"]`` differs from a known ``payment_id`` → conflict '
                          "``payment_id_mismatch``; else accepted."):
        checked(CLASSIFY, CLASSIFY_FACTS),
    ("classify_proposal", '4. ``risk_assessed``: ``payload["risk_level"]`` not in RISK_LEVELS → rejected '
                          "``invalid_risk_level``; else accepted."):
        checked(CLASSIFY, CLASSIFY_FACTS),
    ("classify_proposal", "5. ``refund_approval_proposed``: effects applied → conflict ``effect_already_applied``; risk "
                          "``high`` → conflict ``approval_conflicts_with_high_risk`` with ``required_inputs`` "
                          '``["risk_assessment", "human_override_or_rejection"]``; no payment id → conflict '
                          '``payment_not_confirmed``; ``payload["amount"] > payment_amount`` → conflict '
                          "``amount_exceeds_payment``; else accepted."):
        checked(CLASSIFY, CLASSIFY_APPROVAL),
    ("classify_proposal", "6. ``refund_rejection_proposed``: effects applied → conflict ``effect_already_applied``; else "
                          "accepted."):
        checked(CLASSIFY, CLASSIFY_REJECTION),
    ("classify_proposal", "7. anything else → rejected ``unknown_proposal_type``."):
        checked(CLASSIFY, CLASSIFY_REJECTION),
    ("classify_proposal", "Never mutates its arguments."):
        checked(CLASSIFY, CLASSIFY_FACTS),  # expect_verdict, in every classify rule: the arguments after the call
    # -- CaseStream -------------------------------------------------------------------------------------
    ("StaleVersion", "An append expected another version of the stream: re-read it and decide again."):
        checked(OPTIMISTIC, STREAM_STALE),
    ("CaseStream", "The append-only events of one case."):
        checked(OPTIMISTIC, STREAM_APPENDS),
    ("CaseStream", "``CaseStream(stream_id)``; ``version`` = number of events."):
        checked(OPTIMISTIC, STREAM_APPENDS),
    ("CaseStream", "``append(event, expected_version)`` stores a copy of ``event`` and returns the new version, only if "
                   "``expected_version`` is the current version; otherwise it raises ``StaleVersion(expected, actual)`` "
                   "and appends nothing."):
        # "stores a copy and returns the new version": the rule "append at the current version returns the new version; ..."
        checked(OPTIMISTIC, STREAM_STALE),
    ("CaseStream", "Safe for many threads: of writers racing with the same expected version exactly one wins."):
        checked(OPTIMISTIC, STREAM_RACE),
    ("CaseStream", "``events()`` returns copies, oldest first."):
        checked(OPTIMISTIC, STREAM_APPENDS),
    ("CaseStream", "Its lock is made in ``__init__`` with ``threading.Lock()`` (or ``RLock()``) and held while ``append`` "
                   "compares and appends: the grader lends the stream its own locks there and races writers at them."):
        checked(OPTIMISTIC, STREAM_RACE),
    # -- conflicts ----------------------------------------------------------------------------------------
    ("open_conflict", "A conflict record — a value in the state, never an error string."):
        checked(CONFLICTS, CONFLICT_RECORD),
    ("open_conflict", '``{"conflict_id", "stream_id": case["case_id"], "status": "open", "kind", "current_revision": '
                      'case["revision"], "proposals": <their event ids, sorted>, "required_action", "resolution": None}``.'):
        checked(CONFLICTS, CONFLICT_RECORD),
    ("open_conflict", "``conflict_id`` is a non-empty string naming the conflict, for instance "
                      "``f\"{case_id}:{kind}:{revision}:{'+'.join(event ids)}\"``: the same conflict (its proposals in "
                      "any order) always gets the same id, another kind another one."):
        checked(CONFLICTS, CONFLICT_IDS),  # non-empty str: the record rule
    ("resolve_conflict", "Resolve a conflict by appending an event; return the resolved record (a new dict)."):
        checked(CONFLICTS, CONFLICT_RESOLUTION),
    ("resolve_conflict", "``decision`` is the event id of the proposal that wins, or any other word (``\"reject_all\"``) "
                         "for none of them."):
        checked(CONFLICTS, CONFLICT_RESOLUTION),  # both kinds of decision, and "rejected" follows from it
    ("resolve_conflict", 'Appends ``{"type": "conflict_resolved", "conflict_id", "decision", "actor", "rule", "rejected": '
                         "<the conflict's other event ids>}`` at the version just read, and returns ``{**conflict, "
                         '"status": "resolved", "resolution": <that event>}``.'):
        checked(CONFLICTS, CONFLICT_RESOLUTION),
    ("resolve_conflict", "Earlier events and ``conflict`` itself are never changed."):
        checked(CONFLICTS, CONFLICT_HISTORY),
    ("resolve_conflict", "Resolved once: when the stream already holds a resolution of this conflict, return the record "
                         "with *that* resolution and append nothing."):
        checked(CONFLICTS, CONFLICT_ONCE),
    ("resolve_conflict", "On ``StaleVersion`` re-read the stream and decide again — never retry the same append blindly: "
                         "the writer that won may have resolved it."):
        checked(CONFLICTS, RESOLVER_RACE),
    # -- the refund graph ---------------------------------------------------------------------------------
    ("RefundState", "The refund graph's state: branches add to evidence and proposals; they never write the case "
                    "(decide and apply_effects do)."):
        checked(ORDER, GRAPH_BRANCH_WRITES),
    ("RefundState", "case dict overwrite: written by decide, then apply_effects signals dict overwrite: the input, what "
                    "the fake tools find evidence Annotated[list[dict], merge_evidence] every branch's evidence, merged by "
                    "id proposals Annotated[list[dict], merge_proposals] every branch's proposals, merged by event id "
                    "conflicts list[dict] conflict records, written by decide events list[dict] decisions taken, written "
                    "by decide effects_done list[str] idempotency keys of the effects run"):
        checked(ORDER, REFUND_STATE),  # each key and its merge rule; the graph's output: GRAPH_DECIDES
    ("RefundOutput", "What ``build_refund_graph``'s ``invoke`` returns."):
        checked(ORDER, GRAPH_DECIDES),  # exactly the output keys
    ("build_refund_graph", "The refund case: four branches in parallel, then ``decide``, then ``apply_effects``."):
        checked(ORDER, GRAPH_PARALLEL),  # then decide, then apply_effects: the decided case and effects_done
    ("build_refund_graph", '``effects``: effect name (``"send_email"``, ``"create_transfer"``) → '
                           "``effect(idempotency_key=..., case=...)``."):
        checked(EFFECTS, EFFECTS_RUN),
    ("build_refund_graph", 'Input ``{"case": {...}, "signals": {...}}``.'):
        explains("describes the graph's input; every graph rule invokes it so"),
    ("build_refund_graph", "Branch nodes ``policy_check``, ``payment_lookup``, ``risk_review``, ``reply_draft`` call the "
                           "fake tools of ``agstate.refund_tools`` at the case's revision and publish ``evidence`` and "
                           "``proposals``."):
        checked(ORDER, GRAPH_DECIDES),  # node names (refund_runs), proposals at the case revision (else stale)
    ("build_refund_graph", "``decide`` owns the decision (see ``_decide``)."):
        checked(ORDER, GRAPH_DECIDES),
    ("build_refund_graph", '``apply_effects`` runs every effect once per idempotency key ``f"{case_id}:{effect_name}"`` '
                           "for each ``approval_confirmed`` in ``events``, records the keys in ``effects_done``, and "
                           "sets ``effects_applied``."):
        checked(EFFECTS, EFFECTS_RUN),  # effects_applied: the case the graph decides (branches.order_independent)
    ("build_refund_graph", "Output keys: ``case``, ``evidence``, ``proposals``, ``conflicts``, ``events``, "
                           "``effects_done`` — the same whatever order the branch results arrive in, and when one arrives "
                           "twice."):
        checked(ORDER, GRAPH_EVERY_ORDER),
    # -- private helpers the learner completes ---------------------------------------------------------------
    ('_decide', 'The ``decide`` node: the only writer of the decision.'):
        checked(ORDER, GRAPH_BRANCH_WRITES),
    ('_decide', 'Returns ``case``, ``conflicts``, ``events``.'):
        checked(ORDER, DECIDE_ALONE),
    # also: 'payment_id (write-once)': a second payment id conflicts (classify's payment_id_mismatch row)
    ('_decide', '1. Facts first: each ``evidence_added``, ``payment_found`` and ``risk_assessed`` proposal is classified '
                'against the case as the branches read it; accepted payments set ``payment_id`` (write-once) and '
                '``payment_amount``, accepted risk sets ``risk_level``.'):
        checked(ORDER, DECIDE_ALONE),
    ('_decide', '2. Then every decision proposal (approval, rejection) is classified against the case *with the facts '
                'applied*.'):
        checked(ORDER, DECIDE_ALONE),
    # One record per kind: expect_decision counts the records of each kind (mutant conflict_record_per_proposal).
    ('_decide', '3. Conflicts become records (``open_conflict``), one per kind, holding all the proposals of that kind; '
                'approvals and rejections both accepted are a ``contradictory_decisions`` conflict.'):
        checked(ORDER, DECIDE_ALONE),
    # The event's case_id, revision and proposals: expect_decision_events (mutant decision_event_names_no_proposals).
    ('_decide', '4. No conflict and one outcome among the accepted decisions: set ``decision`` (``"approved"`` / '
                '``"rejected"``) and append ``{"type": "approval_confirmed" | "refund_rejected", "case_id", '
                '"revision": <new revision>, "proposals": <their event ids>}``.'):
        checked(ORDER, DECIDE_ALONE),
    ('_decide', '5. The revision goes up by one.'):
        checked(ORDER, DECIDE_ALONE),  # the case is compared whole with the model's, revision included
    ('_decide', 'Proposals are iterated in event-id order, so the result never depends on which branch finished first.'):
        checked(ORDER, GRAPH_EVERY_ORDER),
}

# The "Your exercise" sections of part D's notebooks (solutions/notebooks/21_merge_evidence.py … 27_effects_once.py).
NOTEBOOKS = {
    # also: the docstring's rules, each in TABLE
    ('21_merge_evidence',
     'In `agstate/branches.py`, write **`merge_evidence(left, right)`** as its docstring says (`None` counts as no '
     'evidence).'):
        checked(MERGE, MERGE_NONE),
    # also: 'your inputs are unchanged': MERGE_PURE
    ('21_merge_evidence',
     'The grader checks it on random evidence lists (repeated ids, identical and conflicting records, unicode and '
     'empty ids) and checks that your inputs are unchanged.'):
        checked(MERGE, MERGE_PURE),
    ('22_reducer_laws', 'Nothing new to write: make `merge_evidence` obey the three laws.'):
        checked(LAWS, LAW_COMMUTATIVE),  # also: the other two laws, each a rule of branches.laws
    ('22_reducer_laws',
     'The grader draws random evidence (and collisions) and checks each law, exactly as the cells above do.'):
        explains('how the check cell grades: the inputs the laws are checked on'),
    ('23_write_once', 'Write **`write_once(old, new)`** in `agstate/branches.py`.'):
        checked(ONCE, ONCE_FROM_NONE),  # also: the docstring's other rules, each in TABLE
    ('23_write_once',
     'The grader checks it on random values (including `0`, `\'\'` and `False`, which are values, not "nothing yet") '
     'and in random graphs of parallel and sequential writers.'):
        checked(ONCE, ONCE_IN_GRAPH),
    # also: 'nothing stored when the version is not current': STREAM_STALE
    ('24_optimistic_concurrency',
     'Complete **`CaseStream`** in `agstate/branches.py`: `version`, `append(event, expected_version)` (store a copy; '
     'return the new version; `StaleVersion(expected, actual)` and nothing stored when the version is not current) '
     'and `events()` (copies, oldest first).'):
        checked(OPTIMISTIC, STREAM_APPENDS),
    ('24_optimistic_concurrency',
     "Make the stream's lock in `__init__` with `threading.Lock()` (or `RLock()`), and compare and append while "
     "holding it."):
        checked(OPTIMISTIC, STREAM_RACE),
    ('24_optimistic_concurrency',
     "The grader races writers at that lock, not with threads: while your `CaseStream(...)` is built, "
     "`threading.Lock()` makes a lock of the grader's, so it sees every writer take and give back the lock and "
     "decides when each goes on."):
        explains('how the race rule schedules its writers (grader/parts/branches/scenarios_race.py)'),
    ('24_optimistic_concurrency',
     'Where a writer is about to take the lock, or has just given it back, the next writer appends first: a check '
     'made before the lock, or an append made after it, meets a rival on every run.'):
        checked(OPTIMISTIC, STREAM_RACE),
    ('24_optimistic_concurrency',
     'It checks that exactly one writer wins each round, and that the winner appended while it held the lock.'):
        checked(OPTIMISTIC, STREAM_RACE),
    ('24_optimistic_concurrency', 'A stream that takes no lock cannot be raced, so it does not pass either.'):
        checked(OPTIMISTIC, STREAM_RACE),
    ('25_classify_proposals',
     "Write **`classify_proposal(current, proposal)`** in `agstate/branches.py`, rule by rule, in the table's "
     "order."):
        checked(CLASSIFY, CLASSIFY_STALE),  # 'in the table's order': rule 1 first; the other rows, each in TABLE
    # also: 'required_inputs for the high-risk conflict': CLASSIFY_APPROVAL; 'never mutate': every classify rule
    #   (expect_verdict reads the arguments after the call)
    ('25_classify_proposals',
     'Return a new dict with `status` and `reason` (`None` when accepted), plus `current_revision` for a stale '
     'proposal and `required_inputs` for the high-risk conflict; never mutate the arguments.'):
        checked(CLASSIFY, CLASSIFY_STALE),
    ('25_classify_proposals', 'The grader checks every row on random cases.'):
        explains('how the check cell grades: each row is a rule of branches.classify'),
    ('26_conflicts_as_data',
     'Write **`open_conflict`** and **`resolve_conflict`** in `agstate/branches.py` as their docstrings say.'):
        checked(CONFLICTS, CONFLICT_RECORD),  # also: the docstrings' rules, each in TABLE
    # also: stable ids: CONFLICT_IDS; the appended event: CONFLICT_RESOLUTION; nothing earlier changes:
    #   CONFLICT_HISTORY; a second resolution: CONFLICT_ONCE; the lost race: RESOLVER_RACE
    ('26_conflicts_as_data',
     "The grader checks the record's shape, stable ids, the appended event, that nothing earlier changes, that a "
     "second resolution appends nothing, and that a resolver who loses the race (another one commits between its "
     "read and its append) re-reads instead of retrying blindly."):
        checked(CONFLICTS, RESOLVER_RACE),
    ('27_effects_once',
     'Complete **`RefundState`**, `merge_proposals`, `_decide` and **`build_refund_graph(effects, '
     'checkpointer=None)`** in `agstate/branches.py`, as their docstrings say.'):
        checked(ORDER, GRAPH_DECIDES),  # also: the docstrings' rules, each in TABLE
    # also: 'twice': 'a branch result delivered twice changes nothing'; the effects on redelivery: EFFECTS_CONFIRMATION
    ('27_effects_once', 'The grader checks each piece on its own first, in this order.'):
        explains("introduces the list of pieces below, each checked by its own rule"),
    ('27_effects_once', '- `RefundState`: each key of its docstring, with its merge rule.'):
        checked(ORDER, REFUND_STATE),
    ('27_effects_once', '- `merge_proposals`: random lists of proposals, either way round and one delivered again.'):
        checked(ORDER, PROPOSALS_MERGED),
    ('27_effects_once',
     '- `_decide`: random states as `decide` meets them — a fresh case and the branches\' proposals, now and then '
     'with one of them missing.'):
        checked(ORDER, DECIDE_ALONE),
    ('27_effects_once',
     'Then it runs your graph on random cases against the decision table, delivers the branch results in every '
     'order and twice, and counts the effects on redelivery.'):
        checked(ORDER, GRAPH_EVERY_ORDER),
}
