"""Mutants of part F: realistic buggy variants of ``solutions/agstate/pauses.py``.

Each ``Mutant`` is one mistake a learner makes with LangGraph's interrupts,
a person's edits and a state's migrations, written as exact text edits of the
reference; ``breaks`` is the set of part-F task ids the grader must fail for
it, and every other part-F task must keep full marks. ``upgrade_update``
migrates with ``migrate``, so a mistake in ``upgrade`` or ``migrate`` that
reaches a thread's keys (``total``, ``lines``, ``currency``, ``version``)
breaks ``pauses.upgrade`` as well: both are listed and ``why`` says so. One
that reaches only keys no release has (the grader's threads hold their
release's keys only), or only the purity or the range checks, breaks
``pauses.migrate`` alone.
"""

from support.corpus import Mutant
from support.corpus import mutant as _m

__all__ = ["MUTANTS", "EXAMPLES", "MIN_MUTANTS"]

APPROVAL = "pauses.approval"
EDITS = "pauses.edits"
QUESTIONS = "pauses.questions"
MIGRATE = "pauses.migrate"
UPGRADE = "pauses.upgrade"

EXAMPLES = 20  # random examples per rule when the corpus is graded
MIN_MUTANTS = 24


IMPORTS = "import copy\nimport operator\n"
# build_approval_graph
SEND = "        inbox.send(f\"ask:{request['id']}\", request)  # keyed: a re-run of this step sends nothing more\n"
WAIT = ("        # Nothing before the interrupt: this node runs again from here when the person answers.\n"
        "        approved = interrupt(state[\"request\"])\n")
DECIDE = "        return {\"decision\": \"approved\" if approved is True else \"denied\"}\n"
PAY = "        receipt = payments.pay(f\"pay:{request['id']}\", request[\"payee\"], request[\"amount\"])\n"
ROUTE = ("    graph.add_conditional_edges(\"wait\", lambda state: \"pay\" if state[\"decision\"] == \"approved\" else \"deny\", "
         "[\"pay\", \"deny\"])\n")
COMPILE_APPROVAL = ("    graph.add_edge(\"deny\", END)\n    return graph.compile(checkpointer=checkpointer)\n")
# edit_update
MEANT = "    return {key: Overwrite(meant) if has_reducer else meant}\n"
INDEX = "        if type(index) is not int or not 0 <= index < len(current):\n"
INDEX_RAISE = "            raise ValueError(f\"{key!r}: {index!r} is not an index of its {len(current)} items\")\n"
REPLACE = "        meant = list(value) if key != \"draft\" else value\n"
FITS = ("        fits = isinstance(value, str) if key == \"draft\" else (isinstance(value, list) and all(isinstance(v, str) "
        "for v in value))\n")
# build_intake_graph
PLAN = "        return {\"asked\": [question for question in FORM if stock.needs(question)], \"answers\": {}}\n"
ASK = ("        question = next(q for q in state[\"asked\"] if q not in state[\"answers\"])\n"
       "        answer = interrupt({\"question\": question})\n"
       "        return {\"answers\": {**state[\"answers\"], question: answer}}\n")
# upgrade, migrate
UPGRADE_CHECK = "    if type(version) is not int or not 1 <= version < CURRENT_VERSION:\n"
MIGRATE_CHECK = "    if type(version) is not int or not 1 <= version <= CURRENT_VERSION:\n"
TO_2 = ("        upgraded = {(\"lines\" if key == \"items\" else key): value for key, value in values.items()}\n"
        "        return {**upgraded, \"version\": 2}\n")
WRAP = "        upgraded[\"lines\"] = [{\"text\": line, \"qty\": 1} for line in upgraded[\"lines\"]]\n"
ARCHIVE = "    archive = {key: value for key, value in values.items() if key not in _NAMES}\n"
TO_3 = "    return {**upgraded, \"version\": 3, \"currency\": \"EUR\", \"archive\": archive}\n"
COPY_IN_UPGRADE = "    values = copy.deepcopy(values)\n    if version == 1:\n"
MIGRATED = ("    migrated = migrate(saved, version)\n"
            "    return {key: Overwrite(migrated.get(key, [])) if rule == \"append\" else migrated.get(key)\n"
            "            for key, rule in VERSIONS[CURRENT_VERSION].items()}\n")
TOTAL_NODE = "    graph.add_node(\"total\", lambda state: {\"total\": sum(line[\"qty\"] for line in state[\"lines\"])})\n"
ADD_NODE = "    graph.add_node(\"add\", lambda state: {\"lines\": [{\"text\": \"x\", \"qty\": 1}]})\n"

MUTANTS: list[Mutant] = [
    # -- pauses.approval: side effects and interrupts ---------------------------------------------------------------
    _m("send_before_interrupt", {APPROVAL},
       [(SEND, ""),
        (WAIT, "        inbox.send(f\"ask:{state['request']['id']}\", state[\"request\"])\n"
               "        approved = interrupt(state[\"request\"])\n")],
       "sends the request in the node that pauses, before interrupt(): the node runs again on resume and sends again",
       says=("inbox.send was called after the run had paused", "sends again when it is resumed")),
    _m("send_key_uuid", {APPROVAL},
       [(IMPORTS, "import copy\nimport operator\nimport uuid\n"),
        (SEND, "        inbox.send(f\"ask:{uuid.uuid4()}\", request)\n")],
       "the inbox's key is a random uuid: the ask step re-run after a crash is a new message under a new key"),
    _m("pay_key_clock", {APPROVAL},
       [(IMPORTS, "import copy\nimport operator\nimport time\n"),
        (PAY, "        receipt = payments.pay(f\"pay:{request['id']}:{time.time_ns()}\", request[\"payee\"], "
              "request[\"amount\"])\n")],
       "the payment's key holds the clock: the pay step re-run after a crash pays a second time",
       says=("payments.pay was called 2 times under 2 different keys", "under one key derived from the request")),
    _m("keys_from_counter", {APPROVAL},
       [(IMPORTS, "import copy\nimport itertools\nimport operator\n"),
        ("    ### BEGIN SOLUTION pauses.approval\n", "    ### BEGIN SOLUTION pauses.approval\n    keys = itertools.count()\n"),
        (SEND, "        inbox.send(f\"ask:{next(keys)}\", request)\n"),
        (PAY, "        receipt = payments.pay(f\"pay:{next(keys)}\", request[\"payee\"], request[\"amount\"])\n")],
       "keys from a counter: every process counts from 0 again (each resume runs in a new one), so the second request's "
       "keys are the first's",
       says=("the second request was never sent to the person",)),
    _m("pays_before_answer", {APPROVAL},
       [(SEND, SEND + "        payments.pay(f\"pay:{request['id']}\", request[\"payee\"], request[\"amount\"])  # ready\n")],
       "pays when it asks, before the person answered (the pay node's same key returns the same receipt)",
       says=("payments.pay was called before the person answered",)),
    _m("pays_on_denial", {APPROVAL},
       [(ROUTE, "    graph.add_conditional_edges(\"wait\", lambda state: \"pay\" if state[\"decision\"] else \"deny\", "
                "[\"pay\", \"deny\"])\n")],
       "routes on the decision's truthiness: 'denied' is a non-empty string, so a denied request is paid",
       says=("after a denial; a denied request is never paid",)),
    _m("decision_not_none", {APPROVAL},
       [(DECIDE, "        return {\"decision\": \"approved\" if approved is not None else \"denied\"}\n")],
       "any answer approves: False is not None, so a denial is paid"),
    _m("decision_is_the_answer", {APPROVAL},
       [(DECIDE, "        return {\"decision\": approved}\n")],
       "stores the answer itself as decision: True is not 'approved', so an approved request is never paid"),
    _m("receipt_not_stored", {APPROVAL},
       [(PAY + "        return {\"receipt\": receipt}\n",
         "        payments.pay(f\"pay:{request['id']}\", request[\"payee\"], request[\"amount\"])\n        return {}\n")],
       "pays and forgets the receipt",
       says=("receipt is None; expected the receipt payments.pay returned",)),
    _m("interrupt_wraps_request", {APPROVAL},
       [(WAIT, "        approved = interrupt({\"approve\": state[\"request\"]})\n")],
       "the interrupt's value wraps the request instead of being the request as given",
       says=("expected exactly one, whose value is the request as given",)),
    _m("two_interrupts", {APPROVAL},
       [(WAIT, WAIT + "        approved = interrupt(\"are you sure?\") and approved\n")],
       "asks twice in one node, the second to confirm: every pause must show exactly the request"),
    _m("message_not_request", {APPROVAL},
       [(SEND, "        inbox.send(f\"ask:{request['id']}\", {\"text\": f\"pay {request['amount']} to {request['payee']}?\"})\n")],
       "sends the person a sentence instead of the request itself",
       says=("expected the request itself",)),
    _m("pays_in_cents", {APPROVAL},
       [(PAY, "        receipt = payments.pay(f\"pay:{request['id']}\", request[\"payee\"], request[\"amount\"] * 100)\n")],
       "pays the amount in cents: payments.pay takes the request's amount as given"),
    _m("no_checkpointer", {APPROVAL},
       [(COMPILE_APPROVAL, "    graph.add_edge(\"deny\", END)\n    return graph.compile()\n")],
       "compiles without the checkpointer it was given: interrupt() needs one to pause"),
    _m("own_checkpointer", {APPROVAL},
       [(COMPILE_APPROVAL, "    graph.add_edge(\"deny\", END)\n"
                           "    from langgraph.checkpoint.memory import InMemorySaver\n"
                           "    return graph.compile(checkpointer=InMemorySaver())\n")],
       "compiles with an InMemorySaver of its own: a crash kills the process and the paused thread with it"),
    _m("deny_leaves_receipt_unset", {APPROVAL},
       [("    def deny(state: ApprovalState) -> dict:\n        return {\"receipt\": None}\n",
         "    def deny(state: ApprovalState) -> dict:\n        return {}\n")],
       "a denial never writes receipt: the state has no receipt, not None",
       says=("receipt was never written after a denial",)),
    # -- pauses.edits: a person's edit through update_state -----------------------------------------------------------
    _m("plain_value_for_reducer", {EDITS},
       [(MEANT, "    return {key: meant}\n")],
       "returns the plain value for every key: notes and tags send it through their reducer, which appends",
       says=("a plain list goes through the key's reducer",)),
    _m("overwrite_on_draft", {EDITS},
       [(MEANT, "    return {key: Overwrite(meant)}\n")],
       "wraps every value in Overwrite: draft has no reducer, so the Overwrite object itself is stored",
       says=("draft then holds Overwrite(",)),
    _m("mutates_current", {EDITS},
       [("        meant = list(current)\n", "        meant = current\n")],
       "corrects or removes in current itself instead of a copy",
       says=("edit_update must not modify current",)),
    _m("index_error_not_value_error", {EDITS},
       [(INDEX, "        if type(index) is not int:\n")],
       "lets the list raise for a bad index: IndexError instead of ValueError, and -1 edits the last item",
       says=("expected ValueError whose message names",)),
    _m("message_without_key", {EDITS},
       [(INDEX_RAISE, "            raise ValueError(f\"{index!r} is out of range\")\n")],
       "the ValueError for a bad index does not name the key"),
    _m("no_type_check", {EDITS},
       [(FITS, "        fits = True\n")],
       "checks no value's type: a list for draft, a string for notes, a number among tags are applied"),
    _m("unfit_edit_ignored", {EDITS},
       [("        raise ValueError(f\"{key!r}: {edit!r} is not an edit this key takes\")\n", "        return {}\n")],
       "an unknown kind of edit, or a list edit on draft, returns an empty update instead of raising"),
    _m("tags_deduplicated", {EDITS},
       [(REPLACE, "        meant = value if key == \"draft\" else list(dict.fromkeys(value))\n")],
       "removes duplicates from a replaced list: the person's list as given may hold a tag twice"),
    _m("negative_index", {EDITS},
       [("        if type(index) is not int or not 0 <= index < len(current):\n",
         "        if type(index) is not int or not -len(current) <= index < len(current):\n")],
       "takes Python's negative indexes as valid: the page says an index is 0 <= index < len(current)",
       says=("expected ValueError naming",)),
    _m("remove_by_value", {EDITS},
       [("            del meant[index]\n", "            meant.remove(current[index])\n")],
       "removes the first item equal to the one at index: with a repeated note, another one goes"),
    # -- pauses.questions: answers by position ------------------------------------------------------------------------
    _m("asked_recomputed", {QUESTIONS},
       [(ASK, "        asked = [q for q in FORM if stock.needs(q)]\n"
              "        question = next(q for q in asked if q not in state[\"answers\"])\n"
              "        answer = interrupt({\"question\": question})\n"
              "        return {\"asked\": asked, \"answers\": {**state[\"answers\"], question: answer}}\n")],
       "asks the stock again each time the node runs: on resume it has changed, and the answer lands elsewhere",
       says=("decided once, before the first pause",)),
    _m("loop_in_one_node", {QUESTIONS},
       [(ASK, "        answers = dict(state[\"answers\"])\n"
              "        for question in [q for q in FORM if stock.needs(q)]:\n"
              "            answers[question] = interrupt({\"question\": question})\n"
              "        return {\"answers\": answers}\n")],
       "asks every question in one node over a list recomputed from the stock: answers are matched by position"),
    _m("asks_from_form", {QUESTIONS},
       [(ASK, ASK.replace("for q in state[\"asked\"] if", "for q in FORM if"))],
       "picks the next question from FORM instead of asked: questions not needed are asked",
       says=("none that is not in asked",)),
    _m("asks_in_reverse", {QUESTIONS},
       [(ASK, ASK.replace("for q in state[\"asked\"] if", "for q in reversed(state[\"asked\"]) if"))],
       "asks the last unanswered question first: not in FORM's order",
       says=("in FORM's order",)),
    _m("asked_sorted", {QUESTIONS},
       [(PLAN, "        return {\"asked\": sorted(q for q in FORM if stock.needs(q)), \"answers\": {}}\n")],
       "keeps the needed questions sorted by name instead of in FORM's order"),
    _m("answer_under_form_position", {QUESTIONS},
       [(ASK, ASK.replace("{**state[\"answers\"], question: answer}",
                          "{**state[\"answers\"], FORM[len(state[\"answers\"])]: answer}"))],
       "stores the n-th answer under FORM's n-th question instead of the question its pause showed: the questions "
       "shown stay unanswered and are asked again"),
    _m("answers_replaced", {QUESTIONS},
       [(ASK, ASK.replace("{**state[\"answers\"], question: answer}", "{question: answer}"))],
       "answers has no reducer: each answer replaces the ones before, which are asked again"),
    _m("always_asks", {QUESTIONS},
       [("    graph.add_conditional_edges(\"plan\", more, [\"ask\", END])\n", "    graph.add_edge(\"plan\", \"ask\")\n")],
       "goes to ask even when no question is needed: next() finds none"),
    _m("more_asks_the_stock", {QUESTIONS},
       [("        return \"ask\" if any(q not in state[\"answers\"] for q in state[\"asked\"]) else END\n",
         "        return \"ask\" if any(stock.needs(q) and q not in state[\"answers\"] for q in FORM) else END\n")],
       "decides whether to go on by asking the stock again: after the first pause it has changed"),
    _m("interrupt_shows_id", {QUESTIONS},
       [("        answer = interrupt({\"question\": question})\n", "        answer = interrupt(question)\n")],
       "pauses with the question id itself, not {'question': id}",
       says=("expected exactly one interrupt, whose value is",)),
    # -- pauses.migrate: upgrade and migrate ----------------------------------------------------------------------------
    _m("total_recomputed", {MIGRATE, UPGRADE},
       [(TO_2, TO_2.replace("\"version\": 2}", "\"version\": 2, \"total\": len(upgraded.get(\"lines\", []))}"))],
       "recomputes total from the lines when renaming them (upgrade_update migrates: the thread's total changes too)",
       says=("total is kept as it was, not recomputed",)),
    _m("unknown_keys_dropped", {MIGRATE},
       [(TO_2, TO_2.replace("for key, value in values.items()}", "for key, value in values.items() if key in _NAMES}"))],
       "drops the keys it does not know when going to release 2 (the graded threads hold none: upgrade keeps its marks)"),
    _m("archive_dropped", {MIGRATE},
       [(ARCHIVE, "    archive = {}\n")],
       "archive is always empty: keys no release has are lost at release 3 (the graded threads hold none)"),
    _m("currency_forgotten", {MIGRATE, UPGRADE},
       [(TO_3, "    return {**upgraded, \"version\": 3, \"archive\": archive}\n")],
       "release 3 has no currency (upgrade_update migrates: the thread's update lacks it too)",
       says=("expected a state of release 3 with the keys ['archive', 'currency', 'lines', 'total', 'version']",)),
    _m("archive_at_release_2", {MIGRATE},
       [(TO_2, "        upgraded = {(\"lines\" if key == \"items\" else key): value for key, value in values.items()}\n"
               "        kept = {key: value for key, value in upgraded.items() if key in _NAMES}\n"
               "        return {**kept, \"version\": 2, \"archive\": {k: v for k, v in upgraded.items() if k not in _NAMES}}\n")],
       "archives unknown keys at release 2, which has no archive (and release 3 then empties it: they are lost); "
       "the graded threads hold no such key, so upgrade keeps its marks"),
    _m("migrate_chain_off_by_one", {MIGRATE, UPGRADE},
       [("    values = copy.deepcopy(values)\n    for release in range(version, CURRENT_VERSION):\n"
         "        values = upgrade(values, release)\n",
         "    values = copy.deepcopy(values)\n    if version == 1:\n        values = upgrade(values, 1)\n"
         "    if version <= 3:\n        values = upgrade(values, 2)\n")],
       "migrate as a chain of ifs, one bound off by one: a release-3 state is upgraded from release 2 again, not kept as "
       "it is (upgrade_update migrates a release-3 thread too: its lines are wrapped again)",
       says=("equal to values on a current state",)),
    _m("upgrade_mutates_values", {MIGRATE},
       [(COPY_IN_UPGRADE, "    if version == 1:\n"),
        (TO_2, "        if \"items\" in values:\n            values[\"lines\"] = values.pop(\"items\")\n"
               "        values[\"version\"] = 2\n        return values\n")],
       "upgrade renames items in place: the caller's state is changed (migrate copies first, so upgrade_update is fine)",
       says=("changed its argument", "the arguments are not modified")),
    _m("upgrade_shallow_copy", {MIGRATE},
       [(COPY_IN_UPGRADE, "    values = dict(values)\n    if version == 1:\n"),
        (WRAP, "        for i, line in enumerate(upgraded[\"lines\"]):\n"
               "            upgraded[\"lines\"][i] = {\"text\": line, \"qty\": 1}\n")],
       "a shallow copy, then lines converted in place: the caller's list of lines is changed"),
    _m("upgrade_accepts_current", {MIGRATE},
       [(UPGRADE_CHECK, "    if type(version) is not int or not 1 <= version <= CURRENT_VERSION:\n")],
       "upgrade accepts CURRENT_VERSION (an off-by-one): upgrade(values, 3) returns a state instead of raising"),
    _m("migrate_unchecked", {MIGRATE},
       [(MIGRATE_CHECK + "        raise ValueError(f\"migrate goes from releases 1 to {CURRENT_VERSION}, not {version!r}\")\n",
         "")],
       "migrate checks no version: migrate(values, 4) returns values instead of raising",
       says=("expected ValueError",)),
    _m("lines_not_wrapped", {MIGRATE, UPGRADE},
       [("    if \"lines\" in upgraded:\n" + WRAP, "")],
       "release 3 keeps release 2's lines as strings (the resumed graph sums their qty: upgrade breaks too)"),
    _m("items_not_renamed", {MIGRATE, UPGRADE},
       [(TO_2, "        return {**values, \"version\": 2}\n")],
       "release 2 keeps items instead of renaming it lines: the items are lost at release 3"),
    _m("wrapped_at_release_2", {MIGRATE, UPGRADE},
       [(TO_2, "        upgraded = {(\"lines\" if key == \"items\" else key): value for key, value in values.items()}\n"
               "        upgraded[\"lines\"] = [{\"text\": line, \"qty\": 1} for line in upgraded.get(\"lines\", [])]\n"
               "        return {**upgraded, \"version\": 2}\n")],
       "converts the lines at release 2, whose lines are strings (and release 3 wraps them again)"),
    _m("version_not_bumped", {MIGRATE, UPGRADE},
       [(TO_3, "    return {**upgraded, \"currency\": \"EUR\", \"archive\": archive}\n")],
       "release 3's state keeps version 2"),
    _m("migrate_sets_currency", {MIGRATE, UPGRADE},
       [("    for release in range(version, CURRENT_VERSION):\n        values = upgrade(values, release)\n    return values\n",
         "    for release in range(version, CURRENT_VERSION):\n        values = upgrade(values, release)\n"
         "    return {**values, \"currency\": \"EUR\"}\n")],
       "migrate resets currency to 'EUR' on every state, a release 3 state's own currency too; upgrade_update migrates "
       "with it, so a release 3 thread in another currency is changed (pauses.upgrade)"),
    # -- pauses.upgrade: an old thread under the new graph ---------------------------------------------------------------
    _m("lines_without_overwrite", {UPGRADE},
       [(MIGRATED, "    migrated = migrate(saved, version)\n"
                   "    return {key: migrated.get(key, [] if rule == \"append\" else None)\n"
                   "            for key, rule in VERSIONS[CURRENT_VERSION].items()}\n")],
       "a plain list for lines: the reducer appends it to the lines the thread holds",
       says=("Overwrite for lines",)),
    _m("update_misses_keys", {UPGRADE},
       [(MIGRATED, "    migrated = migrate(saved, version)\n"
                   "    return {\"lines\": Overwrite(migrated[\"lines\"]), \"total\": migrated[\"total\"]}\n")],
       "the update sets lines and total only: version, currency and archive never reach the thread"),
    _m("overwrite_every_key", {UPGRADE},
       [(MIGRATED, "    migrated = migrate(saved, version)\n"
                   "    return {key: Overwrite(migrated.get(key)) for key in VERSIONS[CURRENT_VERSION]}\n")],
       "Overwrite on every key: a key without a reducer stores the Overwrite object itself"),
    _m("total_by_len", {UPGRADE},
       [(TOTAL_NODE, "    graph.add_node(\"total\", lambda state: {\"total\": len(state[\"lines\"])})\n")],
       "release 3's total counts the lines, as releases 1 and 2 did, instead of summing their qty"),
    _m("adds_old_line", {UPGRADE},
       [(ADD_NODE, "    graph.add_node(\"add\", lambda state: {\"lines\": [\"x\"]})\n")],
       "release 3's add appends release 2's line, a string"),
    _m("update_not_migrated", {UPGRADE},
       [("    migrated = migrate(saved, version)\n", "    migrated = saved\n")],
       "puts the saved values in the update as they are: update_state does not migrate them"),
    _m("migrates_from_release_1", {UPGRADE},
       [("    migrated = migrate(saved, version)\n", "    migrated = migrate(saved, 1)\n")],
       "migrates every thread from release 1: a release-3 thread's lines are wrapped again and its archive emptied"),
    _m("update_keeps_old_keys", {UPGRADE},
       [(MIGRATED, MIGRATED.replace("    return {key:", "    return {**saved, **{key:").replace(
           "VERSIONS[CURRENT_VERSION].items()}\n", "VERSIONS[CURRENT_VERSION].items()}}\n"))],
       "the update also carries the saved keys: items, which release 3 has no channel for"),
    _m("update_recomputes_total", {UPGRADE},
       [(MIGRATED, MIGRATED.replace("    migrated = migrate(saved, version)\n",
                                    "    migrated = migrate(saved, version)\n"
                                    "    migrated[\"total\"] = sum(line[\"qty\"] for line in migrated[\"lines\"])\n"))],
       "the update recomputes total instead of carrying the thread's (migrate itself keeps it)"),
    _m("order_wait_without_interrupt", {UPGRADE},
       [("        interrupt(\"confirm\")\n        return {}\n", "        return {}\n")],
       "release 3's wait never pauses: a new order is never confirmed"),
    _m("order_interrupt_value", {UPGRADE},
       [("        interrupt(\"confirm\")\n", "        interrupt({\"confirm\": state.get(\"lines\", [])})\n")],
       "release 3's wait pauses with the lines to confirm instead of 'confirm'"),
    # -- found by a hostile review: what a learner's process remembers, keeps or guesses --------------------------
    _m("constant_keys", {APPROVAL},
       [
        ('inbox.send(f"ask:{request[\'id\']}", request)',
         'inbox.send("ask", request)'),
        ('payments.pay(f"pay:{request[\'id\']}", ',
         'payments.pay("pay", ')],
       ('the keys name the effect, not the request: a second request on the same inbox and payments'
        ' is a repeat, never sent nor paid'),
       says=("the second request was never sent to the person",)),
    # -- found by a second hostile review: a crash point that could be steered, keys that name the wrong thing ------
    _m("sends_thrice_pays_by_uuid", {APPROVAL},
       [
        (IMPORTS, IMPORTS + "import uuid\n"),
        (SEND, SEND * 3),
        ('payments.pay(f"pay:{request[\'id\']}", ', 'payments.pay(f"pay:{uuid.uuid4()}", ')],
       ("sends three times under one key (harmless), so a crash counted over both fakes never lands in pay, whose key "
        "is random: killed in the payment, it pays twice"),
       says=("payments.pay",)),
    _m("keys_from_the_thread", {APPROVAL},
       [
        ('    def ask(state: ApprovalState) -> dict:\n        request = state["request"]\n'
         '        inbox.send(f"ask:{request[\'id\']}", request)',
         '    def ask(state: ApprovalState, config) -> dict:\n        request = state["request"]\n'
         '        inbox.send(f"ask:{config[\'configurable\'][\'thread_id\']}", request)'),
        ('    def pay(state: ApprovalState) -> dict:\n        request = state["request"]\n'
         '        receipt = payments.pay(f"pay:{request[\'id\']}", ',
         '    def pay(state: ApprovalState, config) -> dict:\n        request = state["request"]\n'
         '        receipt = payments.pay(f"pay:{config[\'configurable\'][\'thread_id\']}", ')],
       "keys name the thread, not the request: the same request started again on another thread is sent and paid again",
       says=("the first request was sent to the person again on the new thread",)),
    _m("keys_from_payee_and_amount", {APPROVAL},
       [
        ('inbox.send(f"ask:{request[\'id\']}", request)',
         'inbox.send(f"ask:{request[\'payee\']}:{request[\'amount\']}", request)'),
        ('payments.pay(f"pay:{request[\'id\']}", ',
         'payments.pay(f"pay:{request[\'payee\']}:{request[\'amount\']}", ')],
       "keys name the payee and amount, not the request: a second request for the same sum to the same payee is a repeat",
       says=("the second request was never sent to the person",)),
    _m("qty_true_version_float", {MIGRATE, UPGRADE},
       [('        upgraded["lines"] = [{"text": line, "qty": 1} for line in upgraded["lines"]]\n',
         '        upgraded["lines"] = [{"text": line, "qty": True} for line in upgraded["lines"]]\n'),
        ('    return {**upgraded, "version": 3, "currency": "EUR", "archive": archive}',
         '    return {**upgraded, "version": 3.0, "currency": "EUR", "archive": archive}')],
       "writes True for a qty of 1 and 3.0 for version 3: equal as Python's == says, not the types release 3 holds",
       says=("expected",)),
    _m("bool_is_an_index", {EDITS},
       [(INDEX, INDEX.replace("type(index) is not int", "not isinstance(index, int)"))],
       "takes True for an index (a bool is an int to isinstance): ('remove', True) removes the second item",
       says=("True is a bool, not an index",)),
    _m("interrupt_value_decorated", {APPROVAL},
       [('        approved = interrupt(state["request"])\n',
         '        approved = interrupt(dict(state["request"], note="please approve"))\n')],
       "asks with the request and a note of its own: every rule judged on the run fails on that one cause (learner-F), "
       "and the feedback says so once",
       says=("whose value is the request as given", "The same failure breaks")),
    _m("tuple_is_a_list", {EDITS},
       [("isinstance(value, list) and all(isinstance(v, str) for v in value)",
         "isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)")],
       "takes a tuple of str for a list key's replacement: the page calls it a value of the wrong type",
       says=("is a tuple, not a list",)),
    _m("remove_ignores_extra_parts", {EDITS},
       [('        if kind == "remove" and len(args) == 1:\n', '        if kind == "remove":\n')],
       "applies ('remove', 0, 'and more'), an edit with a part too many, instead of refusing it"),
    _m("receipt_literal", {APPROVAL},
       [
        ('        receipt = payments.pay(f"pay:{request[\'id\']}", request["payee"], request["amount"])\n'
         '        return {"receipt": receipt}',
         '        payments.pay(f"pay:{request[\'id\']}", request["payee"], request["amount"])\n'
         '        return {"receipt": "receipt-1"}  # ignores what pay returned')],
       'writes the receipt it expects, not the one payments.pay returned',
       says=("expected the receipt payments.pay returned",)),
    _m("approval_process_memory", {APPROVAL},
       [
        ('    def wait(state: ApprovalState) -> dict:\n'
         '        # Nothing before the interrupt: this node runs again from here when the person answers.\n'
         '        approved = interrupt(state["request"])',
         "    sent = set()  # this process's memory, per graph built\n"
         '\n'
         '    def wait(state: ApprovalState) -> dict:\n'
         '        request = state["request"]\n'
         '        if request["id"] not in sent:\n'
         '            inbox.send(f"ask:{request[\'id\']}", request)\n'
         '            sent.add(request["id"])\n'
         '        approved = interrupt(request)'),
        ('    graph.add_edge(START, "ask")\n'
         '    graph.add_edge("ask", "wait")',
         '    graph.add_edge(START, "wait")'),
        ('    for name, node in (("ask", ask), ("wait", wait), ("pay", pay), ("deny", deny)):',
         '    for name, node in (("wait", wait), ("pay", pay), ("deny", deny)):')],
       ("sends in the pausing node, guarded by a set in the process's memory: the resume, in anothe"
        'r process, sends again'),
       says=("inbox.send was called after the run had paused",)),
    _m("questions_process_memory", {QUESTIONS},
       [
        ('    def plan(state: IntakeState) -> dict:',
         "    decided = {}  # this process's memory, per graph built\n"
         '\n'
         '    def ask_all(state: IntakeState) -> dict:\n'
         '        if "asked" not in decided:\n'
         '            decided["asked"] = [question for question in FORM if stock.needs(question)]\n'
         '        asked = decided["asked"]\n'
         '        answers = {}\n'
         '        for question in asked:\n'
         '            answers[question] = interrupt({"question": question})\n'
         '        return {"asked": asked, "answers": answers}\n'
         '\n'
         '    def plan(state: IntakeState) -> dict:'),
        ('    graph = StateGraph(IntakeState)\n'
         '    graph.add_node("plan", plan)\n'
         '    graph.add_node("ask", ask)\n'
         '    graph.add_edge(START, "plan")\n'
         '    graph.add_conditional_edges("plan", more, ["ask", END])\n'
         '    graph.add_conditional_edges("ask", more, ["ask", END])',
         '    graph = StateGraph(IntakeState)\n'
         '    graph.add_node("ask_all", ask_all)\n'
         '    graph.add_edge(START, "ask_all")\n'
         '    graph.add_edge("ask_all", END)')],
       ("decides the questions in the process's memory and writes asked at the end: the resume, in "
        'another process, asks the changed stock')),
    _m("impure_upgrade", {MIGRATE},
       [
        ('def upgrade(values: dict, version: int) -> dict:\n',
         '_SEEN = []\n'
         '\n'
         '\n'
         'def upgrade(values: dict, version: int) -> dict:\n'
         '    # impure: the second call with the same arguments returns something else\n'
         '    import json as _json\n'
         '    token = _json.dumps([values, version], sort_keys=True, default=str)\n'
         '    again = token in _SEEN\n'
         '    _SEEN.append(token)\n'
         '    if again:\n'
         '        return {"version": version + 1, "garbage": True}\n'
         '    return _upgrade(values, version)\n'
         '\n'
         '\n'
         'def _upgrade(values: dict, version: int) -> dict:\n'),
        ('        values = upgrade(values, release)',
         '        values = _upgrade(values, release)')],
       'upgrade answers a repeated call differently (it remembers its calls)',
       says=("the same arguments give equal results",)),
    _m("intake_own_saver", {QUESTIONS},
       [
        ('    graph.add_conditional_edges("ask", more, ["ask", END])\n'
         '    return graph.compile(checkpointer=checkpointer)',
         '    graph.add_conditional_edges("ask", more, ["ask", END])\n'
         '    from langgraph.checkpoint.memory import InMemorySaver\n'
         '    return graph.compile(checkpointer=InMemorySaver())')],
       'the intake graph compiled with an InMemorySaver of its own: its threads end with its process',
       says=("compiled with a checkpointer of its own",)),
    _m("order_own_saver", {UPGRADE},
       [
        ('    graph.add_edge("total", END)\n'
         '    return graph.compile(checkpointer=checkpointer)\n'
         '    ### END SOLUTION',
         '    graph.add_edge("total", END)\n'
         '    from langgraph.checkpoint.memory import InMemorySaver\n'
         '    return graph.compile(checkpointer=InMemorySaver())\n'
         '    ### END SOLUTION')],
       ('release 3 compiled with an InMemorySaver of its own: the old thread is in the checkpointer'
        ' it was given'),
       says=("compiled with a checkpointer of its own",)),
    _m("local_import", {APPROVAL},
       [
        ('    def wait(state: ApprovalState) -> dict:\n'
         '        # Nothing before the interrupt: this node runs again from here when the person answers.\n'
         '        approved = interrupt(state["request"])',
         '    def wait(state: ApprovalState) -> dict:\n'
         '        from langgraph.types import interrupt  # a local import, by its name\n'
         '\n'
         '        approved = interrupt(state["request"])')],
       ("imports interrupt inside the node: LangGraph's own, which the grader cannot lend, and whic"
        'h cannot reach the run'),
       says=("import interrupt at the top of agstate/pauses.py",)),
]
