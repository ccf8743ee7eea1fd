"""Mutants of part D: realistic buggy variants of ``solutions/agstate/branches.py``.

Each ``Mutant`` is one mistake, written as exact text edits of the reference;
``breaks`` is the set of part-D task ids the grader must fail for it, and
every other part-D task must keep full marks. When one mistake breaks two
tasks (the graph uses the broken function), both are listed and ``why`` says
so. An edit whose old text does not occur exactly once raises
``StaleMutant``, so a change to the reference never silently turns a mutant
into the reference itself.
"""

from support.corpus import Mutant
from support.corpus import mutant as _m

__all__ = ["MUTANTS", "EXAMPLES", "MIN_MUTANTS"]

MERGE = "branches.merge_evidence"
LAWS = "branches.laws"
ONCE = "branches.write_once"
CLASSIFY = "branches.classify"
OPTIMISTIC = "branches.optimistic"
CONFLICTS = "branches.conflicts"
ORDER = "branches.order_independent"
EFFECTS = "branches.effects_once"

EXAMPLES = 20  # random examples per rule when the corpus is graded
MIN_MUTANTS = 15


MERGE_BODY = '    return _union(left, right, "id")\n'
PROPOSALS_BODY = '    return _union(left, right, "event_id")\n'
WRITE_ONCE_BODY = """\
    if old is None:
        return new
    if old == new:
        return old
    raise WriteOnceViolation(old, new)
"""
STALE_RULE = """\
    if proposal["expected_revision"] != current["revision"]:
        return _verdict("conflict", "stale_revision", current_revision=current["revision"])
"""
EFFECTS_FIRST = """\
        if current["effects_applied"]:
            return _verdict("conflict", "effect_already_applied")
        if current["risk_level"] == "high":
            return _verdict("conflict", "approval_conflicts_with_high_risk",
                            required_inputs=["risk_assessment", "human_override_or_rejection"])
"""
APPEND_BODY = """\
        with self._lock:
            if expected_version != len(self._events):
                raise StaleVersion(expected_version, len(self._events))
            self._events.append(copy.deepcopy(event))
            return len(self._events)
"""
RESOLVE_RETRY = """\
        try:
            stream.append(event, version)
        except StaleVersion:
            continue  # someone wrote in between: read again, maybe they resolved it
"""
RESOLVE_RETURN = '        return {**copy.deepcopy(conflict), "status": "resolved", "resolution": event}\n    ### END SOLUTION'
EFFECTS_SKIP = """\
                if key in done:  # a redelivered confirmation must not send a second email
                    continue
"""

MUTANTS: list[Mutant] = [
    # -- merge_evidence and its laws -------------------------------------------------------------
    _m("merge_last_write_wins", {MERGE, LAWS},
       [(MERGE_BODY, '    merged = {e["id"]: e for e in [*(left or ()), *(right or ())]}\n'
                     '    return [merged[k] for k in sorted(merged)]\n')],
       "a collision is silently resolved by the later list; swapping the arguments changes the winner (not commutative)"),
    _m("merge_keeps_duplicates", {MERGE, LAWS, ORDER},
       [(MERGE_BODY, '    return sorted([*(left or ()), *(right or ())], key=lambda e: e["id"])\n')],
       "concatenates like operator.add: a redelivered branch result doubles its evidence (not idempotent), also in the graph"),
    _m("merge_unsorted", {MERGE, LAWS, ORDER},
       [(MERGE_BODY, '    merged = {}\n'
                     '    for e in [*(left or ()), *(right or ())]:\n'
                     '        if e["id"] in merged and merged[e["id"]] != e:\n'
                     '            raise EvidenceCollision(e["id"], merged[e["id"]], e)\n'
                     '        merged[e["id"]] = e\n'
                     '    return list(merged.values())\n')],
       "dedupes and detects collisions but keeps arrival order: the merged evidence depends on which branch finished first"),
    _m("merge_mutates_left", {MERGE},
       [(MERGE_BODY, '    left = left if left is not None else []\n'
                     '    left.extend(right or [])\n'
                     '    return _union(left, [], "id")\n')],
       "extends the stored list in place before merging: the caller's list changes under it"),
    _m("merge_none_not_empty", {MERGE},
       [(MERGE_BODY, '    return _union([*left], [*right], "id")\n')],
       "assumes both arguments are lists: merging None (no evidence yet) raises TypeError instead of counting as none"),
    _m("merge_collision_ignored", {MERGE, LAWS},
       [(MERGE_BODY, '    merged = {}\n'
                     '    for e in [*(left or ()), *(right or ())]:\n'
                     '        merged.setdefault(e["id"], e)\n'
                     '    return [merged[k] for k in sorted(merged)]\n')],
       "first write wins on a collision, silently: the disagreement disappears and the order decides"),
    # -- write_once ---------------------------------------------------------------------------
    _m("write_once_overwrites", {ONCE},
       [(WRITE_ONCE_BODY, "    return new\n")],
       "last write wins: a second, different decision silently replaces the first"),
    _m("write_once_truthiness", {ONCE},
       [(WRITE_ONCE_BODY, "    if not old:\n        return new\n    if old == new:\n        return old\n"
                          "    raise WriteOnceViolation(old, new)\n")],
       "treats 0, '' and False as 'not set yet', so a stored falsy value can be overwritten"),
    _m("write_once_identity", {ONCE},
       [(WRITE_ONCE_BODY, "    if old is None:\n        return new\n    if old is new:\n        return old\n"
                          "    raise WriteOnceViolation(old, new)\n")],
       "compares with `is`: an equal value that is another object (a redelivered list) raises"),
    # -- classify_proposal ----------------------------------------------------------------------
    _m("classify_rules_wrong_order", {CLASSIFY},
       [(EFFECTS_FIRST, """\
        if current["risk_level"] == "high":
            return _verdict("conflict", "approval_conflicts_with_high_risk",
                            required_inputs=["risk_assessment", "human_override_or_rejection"])
        if current["effects_applied"]:
            return _verdict("conflict", "effect_already_applied")
""")],
       "checks high risk before 'effects already applied': a refund already paid is reported as a risk question"),
    _m("classify_stale_accepted", {CLASSIFY},
       [(STALE_RULE, "")],
       "no revision check: a proposal made against an old revision of the case is accepted"),
    _m("classify_payment_mismatch_on_unknown", {CLASSIFY, ORDER, EFFECTS},
       [("        if known is not None and payload.get(\"payment_id\") != known:\n",
         "        if payload.get(\"payment_id\") != known:\n")],
       "compares with the known payment id even when none is known yet: every first payment is a conflict, so no refund is approved"),
    _m("classify_invalid_risk_accepted", {CLASSIFY, ORDER},
       [("        if payload.get(\"risk_level\") not in RISK_LEVELS:\n"
         "            return _verdict(\"rejected\", \"invalid_risk_level\")\n", "")],
       "any risk level is accepted: a tool's 'unknown' becomes the case's risk level"),
    _m("classify_approval_no_required_inputs", {CLASSIFY},
       [("""                            required_inputs=["risk_assessment", "human_override_or_rejection"])
""", ")\n")],
       "the high-risk conflict does not say which inputs a person must provide"),
    # -- CaseStream and racing resolvers ----------------------------------------------------------
    # The resolvers are judged on the grader's stream, which runs nothing of the learner's CaseStream: a broken
    # CaseStream fails its own task only (until issue 29 the grader's stream subclassed it, and conflicts failed too).
    _m("stream_sets_its_version_property", {OPTIMISTIC},
       [("        self._lock = threading.Lock()\n", "        self._lock = threading.Lock()\n        self.version = 0\n")],
       "assigns the version property in __init__: CaseStream(...) itself raises AttributeError (no setter)"),
    _m("stream_ignores_expected_version", {OPTIMISTIC},
       [(APPEND_BODY, "        self._events.append(copy.deepcopy(event))\n        return len(self._events)\n")],
       "stale revision accepted: every append succeeds, whatever version the writer read"),
    _m("stream_check_then_append_without_lock", {OPTIMISTIC},
       [("        with self._lock:\n            if expected_version != len(self._events):\n"
         "                raise StaleVersion(expected_version, len(self._events))\n"
         "            self._events.append(copy.deepcopy(event))\n            return len(self._events)\n",
         "        if expected_version != len(self._events):\n            raise StaleVersion(expected_version, len(self._events))\n"
         "        self._events.append(copy.deepcopy(event))\n        return len(self._events)\n")],
       "checks the version, then appends, with no lock: writers racing at one version all pass the check (notebook 24's race)"),
    _m("stream_lock_per_call", {OPTIMISTIC},
       [("        with self._lock:\n            if expected_version != len(self._events):\n",
         "        with threading.Lock():\n            if expected_version != len(self._events):\n")],
       "takes a new lock on every call, which no other writer ever waits for: the same race as no lock at all"),
    _m("stream_events_not_copied", {OPTIMISTIC},
       [("        with self._lock:\n            return copy.deepcopy(self._events)\n", "        return self._events\n")],
       "events() hands out the live list: a caller that edits it rewrites the stream's history"),
    _m("resolve_blind_retry", {CONFLICTS},
       [(RESOLVE_RETRY, """\
        while True:
            try:
                stream.append(event, stream.version)
                break
            except StaleVersion:
                continue  # retry the same append at the new version
""")],
       "after StaleVersion retries the same append blindly at the new version: a conflict another resolver just closed is resolved twice"),
    _m("resolve_no_retry", {CONFLICTS},
       [(RESOLVE_RETRY, "        stream.append(event, version)\n")],
       "lets StaleVersion escape: a resolver that loses the race crashes instead of re-reading the stream"),
    # -- conflicts as data ------------------------------------------------------------------------
    _m("conflict_as_error_string", {CONFLICTS, ORDER},
       [("    ids = sorted({p[\"event_id\"] for p in proposals})\n    return {\n",
         "    ids = sorted({p[\"event_id\"] for p in proposals})\n"
         "    return f\"conflict {kind} on {case['case_id']}: {', '.join(ids)} ({required_action})\"\n    return {\n")],
       "a conflict is an error message: nobody can resolve, count or audit it, and the graph's conflicts hold strings"),
    _m("decide_logs_conflicts_as_strings", {ORDER},
       [("    conflicts = [open_conflict(state[\"case\"], found[kind], kind, REQUIRED_ACTIONS[kind]) for kind in sorted(found)]\n",
         "    conflicts = [f\"conflict: {kind}\" for kind in sorted(found)]\n")],
       "decide records conflicts as strings instead of conflict records"),
    _m("branches_in_a_chain", {ORDER},
       [('        builder.add_edge(START, name)\n',
         '        builder.add_edge(START if name == BRANCHES[0] else BRANCHES[BRANCHES.index(name) - 1], name)\n'),
        ('    builder.add_edge(list(BRANCHES), "decide")\n', '    builder.add_edge(BRANCHES[-1], "decide")\n')],
       "wires the four branches one after the other: the same output, but no branch runs in parallel with another"),
    _m("branch_writes_payment_on_case", {ORDER},
       [("    def branch(tool):\n",
         "    def branch(tool):\n"
         "        if tool is lookup_payment:  # the payment branch records what it found on the case itself\n"
         "            return lambda state: {**tool(state[\"case\"], state[\"signals\"]),\n"
         "                                  \"case\": {**state[\"case\"], \"payment_id\": state[\"signals\"][\"payment_id\"]}}\n")],
       "a branch writes the case (the payment it found) instead of only publishing evidence and a proposal: decide no longer owns it"),
    _m("resolve_mutates_conflict", {CONFLICTS},
       [(RESOLVE_RETURN, '        conflict.update(status="resolved", resolution=event)\n        return conflict\n    ### END SOLUTION')],
       "history rewritten on resolution: the open conflict record is edited in place instead of a new record being returned"),
    _m("resolve_returns_decision_only", {CONFLICTS},
       [(RESOLVE_RETURN, '        return {**copy.deepcopy(conflict), "status": "resolved",\n'
                         '                "resolution": {"decision": decision, "actor": actor}}\n    ### END SOLUTION')],
       "returns a summary as the resolution, not the event it appended: the record no longer says the rule or what was rejected"),
    _m("resolve_rewrites_events", {CONFLICTS},
       [(RESOLVE_RETRY, """\
        for old in stream._events:  # mark the losing proposals in place
            if old.get("event_id") in event["rejected"]:
                old["status"] = "rejected"
""" + RESOLVE_RETRY)],
       "history rewritten on resolution: earlier proposal events are edited to say 'rejected'"),
    _m("resolve_twice", {CONFLICTS},
       [("""\
        for event in stream.events()[:version]:
            if event.get("type") == "conflict_resolved" and event.get("conflict_id") == conflict["conflict_id"]:
                return {**copy.deepcopy(conflict), "status": "resolved", "resolution": event}
""", "")],
       "never looks for an earlier resolution: a second resolver appends a second, contradicting resolution"),
    # -- the refund graph -------------------------------------------------------------------------
    _m("proposals_last_write_wins", {ORDER, EFFECTS},
       [(PROPOSALS_BODY, "    return list(right)\n")],
       "last-write-wins merge of proposals: only the last branch's proposals survive, so the refund is never approved"),
    _m("proposals_sorted_not_unioned", {ORDER},
       [(PROPOSALS_BODY, '    return sorted([*left, *right], key=lambda proposal: proposal["event_id"])\n')],
       "sorts the proposals but keeps both copies of a redelivered one: merge_proposals is not idempotent"),
    _m("proposals_appended", {ORDER},
       [("    proposals: Annotated[list[dict], merge_proposals]\n", "    proposals: Annotated[list[dict], operator.add]\n"),
        ("import copy\n", "import copy\nimport operator\n")],
       "proposals merged with operator.add: their order follows the arrival order and a redelivered result doubles them"),
    _m("decide_reply_ignores_facts", {ORDER, EFFECTS},
       [("        if proposal[\"type\"] in FACT_TYPES:\n            continue\n        verdict = classify_proposal(case, proposal)\n",
         "        if proposal[\"type\"] in FACT_TYPES:\n            continue\n"
         "        verdict = classify_proposal(case if proposal[\"actor\"] == \"policy_check\" else state[\"case\"], proposal)\n")],
       "the reply draft's approval is judged against the case without the facts (no payment, no risk known): it always conflicts"),
    _m("decide_skips_risk_fact", {ORDER, EFFECTS},
       [("    facts = [p for p in proposals if p[\"type\"] in FACT_TYPES]\n",
         "    facts = [p for p in proposals if p[\"type\"] == \"payment_found\"]\n")],
       "the risk assessment is never applied before deciding: a high-risk refund is approved and paid"),
    _m("conflict_record_per_proposal", {ORDER},
       [('conflicts = [open_conflict(state["case"], found[kind], kind, REQUIRED_ACTIONS[kind]) for kind in sorted(found)]',
         'conflicts = [open_conflict(state["case"], [p], kind, REQUIRED_ACTIONS[kind]) for kind in sorted(found) '
         'for p in found[kind]]')],
       "one conflict record per proposal: the docstring says one per kind, holding all the proposals of that kind"),
    _m("decision_event_names_no_proposals", {ORDER},
       [('                       "proposals": [p["event_id"] for p in chosen]})',
         '                       "proposals": []})')],
       "the decision event does not say which proposals it rests on"),
    _m("no_contradictory_conflict", {ORDER},
       [('    if len(accepted) > 1:\n        found["contradictory_decisions"] = [p for group in accepted.values() for p in group]\n', '')],
       "an approval and a rejection both accepted record no conflict: the case stays undecided and nobody is told why"),
    _m("contradiction_decided", {ORDER, EFFECTS},
       [('    if len(accepted) > 1:\n        found["contradictory_decisions"] = [p for group in accepted.values() for p in group]\n',
         '    if len(accepted) > 1:\n        accepted = {"approved": accepted["approved"]}\n')],
       "an approval and a rejection both accepted: the approval silently wins, and the refund is paid"),
    _m("evidence_overwritten", {ORDER, EFFECTS},
       [("    evidence: Annotated[list[dict], merge_evidence]\n", "    evidence: list[dict]\n")],
       "evidence has no merge rule: the branches' parallel writes to it make LangGraph raise InvalidUpdateError"),
    _m("effect_twice_on_redelivery", {EFFECTS},
       [(EFFECTS_SKIP, "")],
       "apply_effects does not skip keys already done: a redelivered confirmation sends a second email and transfer"),
    _m("effect_key_per_revision", {EFFECTS},
       [("                key = f\"{case['case_id']}:{name}\"\n",
         "                key = f\"{case['case_id']}:{case['revision']}:{name}\"\n")],
       "the idempotency key includes the revision, so the payment provider cannot recognise a retried transfer"),
    _m("effects_on_proposals", {ORDER, EFFECTS},
       [("        for event in state.get(\"events\") or []:\n            if event[\"type\"] != \"approval_confirmed\":\n",
         "        for event in state.get(\"proposals\") or []:\n            if event[\"type\"] != \"refund_approval_proposed\":\n")],
       "acts on the reply draft's approval proposal instead of the confirmed decision: a high-risk refund is paid"),
]
