"""Part F's documented sentences (solutions/agstate/pauses.py) and the grader rule that checks each."""
from doc_rules import checked, explains

# The rules' sentences, once each: several documented sentences are checked by the same rule.
PAUSES = "every pause has exactly one interrupt, whose value is the request as given"
ASKED = ("the person is asked exactly once: inbox.send under one key only, with the request as the message, before the "
         "run first pauses")
PAID_AFTER = "nothing is paid before an approving answer, and nothing at all after a denial"
COMPLETES = "the run never gets stuck: once answered it completes, within 25 steps (the grader's recursion_limit)"
OUTCOME = ("after an approval the request is paid exactly once (one key, its payee and amount) and receipt is the "
           "receipt; after a denial receipt is None; decision is 'approved' or 'denied'")
CRASHES = ("killed inside any call of inbox.send or payments.pay, before or after it takes effect, the run goes on in a "
           "new process: asked once, paid at most once, exactly once when it completes")
HOLDS = "after the update, key holds exactly what was meant, whatever its reducer, and every other key is unchanged"
NAMES_KEY = "the update names key only: the value itself for draft, Overwrite(value) for notes and tags"
STAYS = "a paused thread stays paused at the same node after the edit, and the answer resumes it there"
UNCHANGED = "current is not modified"
REFUSED = "an edit that does not fit raises ValueError naming the key, and nothing is applied"
DECIDED = "which questions are asked is decided once, before the first pause, and kept in asked"
ONE_EACH = ("each interrupt asks one question, as {'question': id}, and every answer lands in answers under the question "
            "that interrupt showed")
IN_ORDER = ("a question not in asked is never asked; each question in asked is asked until answered, then never again, "
            "in FORM's order")
INTAKE_DONE = ("the run completes once every question in asked is answered, answers holding exactly those; with none "
               "needed, it completes without pausing")
RELEASE = "upgrade(values, version) is the state of release version + 1, with version set to it"
LINES = "nothing is lost: every item of an old list is in the new list, in order, converted as the table says"
KEPT = ("total is kept as it was; a key no release has is carried unchanged to release 2 and lands in archive under its "
        "key in release 3; currency is 'EUR'")
COMPOSES = ("migrate is upgrade applied release by release up to CURRENT_VERSION, and equal to values on a current "
            "state")
PURE = "pure: the arguments are not modified, and the same arguments give equal results"
RANGE = ("upgrade with a version outside 1..CURRENT_VERSION - 1, and migrate with one outside 1..CURRENT_VERSION, raise "
         "ValueError")
WAITS = ("release 3's wait pauses with 'confirm'; the thread stays paused at wait after the update, and the "
         "confirmation resumes it there")
RESUMES = ("a thread paused under any release, upgraded with upgrade_update and resumed by build_order_graph, completes "
           "with every line it held (migrated) plus the new one, and the total they make")
SETS = "the update sets every key of release 3, with Overwrite for lines and the value for the others"
TWICE = "applying the update twice gives the same state as once"
TWO_REQUESTS = ("keys name the request: a second request on the same inbox and payments is asked and paid too, and the "
                "same request started again on another thread is neither")

APPROVAL, EDITS, QUESTIONS = "pauses.approval", "pauses.edits", "pauses.questions"
MIGRATE, UPGRADE = "pauses.migrate", "pauses.upgrade"

TABLE = {
    # -- the module ---------------------------------------------------------------------------
    ("module", "Part F — pauses and upgrades: a run that stops for a person, and starts again."):
        explains("the part's title and motto"),
    ("module", "A node that calls ``interrupt()`` runs again from its first line when the person answers: whatever it did "
               "before the pause, it does again."):
        explains("what LangGraph does (notebook 33 runs it); the learner's graph is judged by ASKED and CRASHES"),
    ("module", "A person's edit with ``update_state`` goes through the key's reducer."):
        explains("what LangGraph does (notebook 34 runs it); the learner's edits are judged by HOLDS"),
    ("module", "Several pauses in one node are answered by position."):
        explains("what LangGraph does (notebook 35 runs it); the learner's intake is judged by ONE_EACH"),
    ("module", "And a thread paused under one release of the code may be resumed by the next, whose state has other keys."):
        explains("context for notebooks 36 and 37 (36 runs the loss); judged by RESUMES"),
    ("module", "Rules every function here follows:"):
        explains("introduces the list of rules that follows; each item is checked on its own"),
    ("module", "- a side effect is called with an idempotency key derived from the state (never a counter, a clock, a "
               "random number or the thread), so a re-run is recognized;"):
        checked(APPROVAL, TWO_REQUESTS),  # a constant or thread key: the second or third run; a drawn one: CRASHES
    ("module", "- a pause is ``interrupt(value)``, imported by that name from ``langgraph.types`` at the top of the "
               "module, with plain data as its value;"):
        checked(APPROVAL, PAUSES),  # the grader lends its interrupt in that name: another one never pauses its run
    ("module", "- what a node needs after a pause is in the thread's state, never in the process's memory: the answer may "
               "come to another process;"):
        checked(APPROVAL, ASKED),  # every resume runs in a new process: a send guarded by memory is made again

    ("module", "- inputs are never mutated."):
        checked(EDITS, UNCHANGED),  # and PURE for upgrade and migrate
    ("module", "Notebooks: 33_approve_once … 37_old_threads_resume."):
        explains("a pointer to the part's notebooks"),
    ("module", 'Check with ``check("pauses")``.'):
        explains("how to run the grader on this part"),
    # -- build_approval_graph -------------------------------------------------------------------------
    ("build_approval_graph", "A graph over ``ApprovalState`` that asks a person to approve ``request``, then pays it or "
                             "not."):
        checked(APPROVAL, OUTCOME),
    ("build_approval_graph", '``invoke({"request": r}, config)`` sends ``r`` to the person with ``inbox.send`` and pauses '
                             "with ``r`` as the interrupt's value."):
        checked(APPROVAL, PAUSES),  # and ASKED: the message is the request, sent before the first pause
    ("build_approval_graph", "The person answers with ``Command(resume=True)`` (approve) or ``Command(resume=False)`` "
                             "(deny)."):
        checked(APPROVAL, OUTCOME),  # each answer's decision and receipt
    ("build_approval_graph", "An approved request is paid with ``payments.pay`` (its payee and amount) and ``receipt`` is "
                             "the receipt; a denied one is never paid and ``receipt`` is ``None``."):
        checked(APPROVAL, OUTCOME),  # and PAID_AFTER: never paid after a denial
    ("build_approval_graph", '``decision`` is ``"approved"`` or ``"denied"``.'):
        checked(APPROVAL, OUTCOME),
    ("build_approval_graph", "The person is asked once and the request paid at most once per request, whatever re-runs a "
                             "pause or a crash causes: the node that pauses runs again on resume, and a crashed step runs "
                             "again on ``invoke(None, config)``."):
        checked(APPROVAL, CRASHES),  # and ASKED for the re-run on resume; COMPLETES: the run is never stuck
    # -- edit_update ---------------------------------------------------------------------------------
    ("edit_update", "The update for ``graph.update_state(config, update)`` that makes ``key`` of a ``ReviewState`` hold "
                    "what a person meant."):
        checked(EDITS, HOLDS),  # and STAYS: the paused thread stays paused, the answer resumes it
    ("edit_update", "``current`` is the key's value now."):
        explains("what the grader passes (the paused thread's value of key); the edits are judged by HOLDS"),
    ("edit_update", '``edit`` is ``("replace", value)``, ``("correct", index, value)`` (a list key: the item at ``index`` '
                    'becomes ``value``) or ``("remove", index)`` (a list key: the item at ``index`` is removed); a valid '
                    "index is an ``int`` (a ``bool`` is not one: refuse ``True``) with ``0 <= index < len(current)``."):
        checked(EDITS, HOLDS),  # each kind on each key; invalid indexes (True among them): REFUSED
    ("edit_update", "The update names ``key`` only: the value itself for a key without a reducer, ``Overwrite`` of it "
                    "for a key with one (a plain value would go through the reducer)."):
        checked(EDITS, NAMES_KEY),
    ("edit_update", "``current`` is not modified."):
        checked(EDITS, UNCHANGED),
    ("edit_update", "Raises ``ValueError`` naming the key for an edit that does not fit: an unknown key or kind, a list "
                    "edit on ``draft``, an invalid index, a value of the wrong type (a tuple where the key holds a list), "
                    "a part missing or too many."):
        checked(EDITS, REFUSED),
    # -- build_intake_graph --------------------------------------------------------------------------
    ("build_intake_graph", "A graph over ``IntakeState`` that asks, one pause each, the questions of ``FORM`` that "
                           "``stock.needs``."):
        checked(QUESTIONS, ONE_EACH),  # and IN_ORDER
    ("build_intake_graph", "``invoke({}, config)`` decides which questions to ask once, before the first pause, and keeps "
                           "them in ``asked`` (``stock`` may answer otherwise later: the run already started does not "
                           "change)."):
        checked(QUESTIONS, DECIDED),
    ("build_intake_graph", "Each pause's interrupt value is ``{\"question\": <question id>}``, in ``FORM``'s order, and the "
                           "person's answer (the resume value) lands in ``answers`` under that question."):
        checked(QUESTIONS, ONE_EACH),  # "in FORM's order": IN_ORDER
    ("build_intake_graph", "A question is asked until answered, then never again."):
        checked(QUESTIONS, IN_ORDER),
    ("build_intake_graph", "The run completes when every question in ``asked`` is answered; with none needed, at once."):
        checked(QUESTIONS, INTAKE_DONE),
    # -- upgrade and migrate -------------------------------------------------------------------------
    ("upgrade", "The state of release ``version + 1`` for ``values`` of release ``version`` (1 or 2), its ``version`` "
                "set."):
        checked(MIGRATE, RELEASE),
    ("upgrade", '1 -> 2: ``items`` is renamed ``lines``. 2 -> 3: each line ``s`` becomes ``{"text": s, "qty": 1}``, '
                '``currency`` is ``"EUR"``, and every key no release has moves to ``archive`` under its name.'):
        checked(MIGRATE, LINES),  # currency and archive: KEPT
    ("upgrade", "``total`` is kept as it was; a key no release has is carried unchanged to release 2."):
        checked(MIGRATE, KEPT),
    ("upgrade", "Pure: the arguments are not modified, and the same arguments give equal results."):
        checked(MIGRATE, PURE),
    ("upgrade", "Raises ``ValueError`` for a ``version`` other than 1 and 2."):
        checked(MIGRATE, RANGE),
    ("migrate", "``upgrade`` applied release by release from ``version`` to ``CURRENT_VERSION``; on a current state, "
                "equal to it."):
        checked(MIGRATE, COMPOSES),
    ("migrate", "Pure, as ``upgrade``."):
        checked(MIGRATE, PURE),
    ("migrate", "Raises ``ValueError`` for a ``version`` other than 1, 2 and 3."):
        checked(MIGRATE, RANGE),
    # -- upgrade_update and build_order_graph ---------------------------------------------------------
    ("upgrade_update", "The update that makes a thread paused under release ``version`` hold its migrated state, for "
                       "release 3's graph."):
        checked(UPGRADE, RESUMES),
    ("upgrade_update", "``saved`` is the thread's values under its release; ``version`` is 1, 2 or 3 (a thread already "
                       "on release 3 comes through unchanged: do not refuse 3)."):
        checked(UPGRADE, RESUMES),  # its hand-picked cases and drawn threads include release 3 (FIXED, thread_cases)
    ("upgrade_update", "The update sets every key of release 3: ``Overwrite`` for a key with a reducer, the value for the "
                       "others; applying it twice gives what once gives."):
        checked(UPGRADE, SETS),  # the second half: TWICE
    ("build_order_graph", 'Release 3 of the order graph, over ``OrderState``: ``wait`` pauses with ``"confirm"`` (any '
                          'answer confirms), ``add`` appends the line ``{"text": "x", "qty": 1}``, ``total`` sets '
                          "``total`` to the sum of the lines' ``qty``."):
        checked(UPGRADE, RESUMES),  # the pause's value: WAITS
}

NOTEBOOKS = {
    ("33_approve_once", "In `agstate/pauses.py`, write **`build_approval_graph(inbox, payments, checkpointer=None)`** as "
                        "its docstring says."):
        explains("points at the docstring, whose sentences are in TABLE"),
    ("33_approve_once", "The grader lends its own fakes, answers every pause with `True` or `False`, and ends your process "
                        "inside a random call of a fake, before or after it takes effect; a new process goes on as "
                        "`run_to_end` does."):
        checked(APPROVAL, CRASHES),  # what a graded run does: the scenario approval_run
    ("33_approve_once", "Every answer, too, comes to a new process: what a node needs after a pause is in the thread's "
                        "state, not in your process's memory."):
        checked(APPROVAL, ASKED),  # every resume runs in a new process: a send guarded by memory is made again
    ("33_approve_once", "- Every pause has exactly one interrupt, whose value is the request as given."):
        checked(APPROVAL, PAUSES),
    ("33_approve_once", "- The person is asked exactly once: `inbox.send` is called under one key only, with the request "
                        "as the message, before the run first pauses."):
        checked(APPROVAL, ASKED),
    ("33_approve_once", "- Nothing is paid before an approving answer, and nothing after a denial."):
        checked(APPROVAL, PAID_AFTER),
    ("33_approve_once", "- After an approval, `payments.pay` is called under one key only, with the request's payee and "
                        "amount; `receipt` is its receipt (`None` after a denial), `decision` is `\"approved\"` or "
                        "`\"denied\"`."):
        checked(APPROVAL, OUTCOME),
    ("33_approve_once", "- All of this holds across crashes, and the run completes within 25 steps of its answer."):
        checked(APPROVAL, CRASHES),  # and COMPLETES
    ("33_approve_once", "- A key comes from the state (the request's id and what the effect is), never from a counter, a "
                        "clock, a random number or the thread: a second request on the same inbox and payments is sent "
                        "and paid too, and the same request started again on another thread is neither."):
        checked(APPROVAL, TWO_REQUESTS),  # a key drawn anew on the re-run: CRASHES
    ("34_human_edits", "In `agstate/pauses.py`, write **`edit_update(key, current, edit)`** as its docstring says."):
        explains("points at the docstring, whose sentences are in TABLE"),
    ("34_human_edits", "The grader draws random `ReviewState` values and edits of each kind on each key, applies your "
                       "update to a paused thread with `graph.update_state(config, update)` (without `as_node`), and "
                       "resumes it:"):
        checked(EDITS, STAYS),  # what a graded run does: the scenario edit_run
    ("34_human_edits", "- After the update, `key` holds exactly what was meant, whatever its reducer, duplicates "
                       "included; every other key is unchanged."):
        checked(EDITS, HOLDS),
    ("34_human_edits", "- The update names `key` only: the value itself for `draft`, `Overwrite(value)` for `notes` and "
                       "`tags`."):
        checked(EDITS, NAMES_KEY),
    ("34_human_edits", "- The thread stays paused at the same node, and the answer resumes it there."):
        checked(EDITS, STAYS),
    ("34_human_edits", "- `current` is not modified."):
        checked(EDITS, UNCHANGED),
    ("34_human_edits", "- An edit that does not fit raises `ValueError` naming the key: an unknown key or kind of edit, "
                       "`\"correct\"` or `\"remove\"` on `draft`, an index that is not an `int` in "
                       "`0 <= index < len(current)` (a `bool` is not an index: `isinstance(True, int)` is `True` in "
                       "Python, so check for it), a value of the wrong type (a tuple where the key holds a list), a part "
                       "missing or too many."):
        checked(EDITS, REFUSED),
    ("35_questions_by_position", "In `agstate/pauses.py`, write **`build_intake_graph(stock, checkpointer=None)`** as its "
                                 "docstring says."):
        explains("points at the docstring, whose sentences are in TABLE"),
    ("35_questions_by_position", "The grader draws which questions of `FORM` are needed, lends a stock that changes its "
                                 "answers after the first pause, and answers each pause from answers drawn per question:"):
        checked(QUESTIONS, DECIDED),  # what a graded run does: the scenario intake_run
    ("35_questions_by_position", "- Which questions are asked is decided once, before the first pause, and kept in "
                                 "`asked`, in `FORM`'s order."):
        checked(QUESTIONS, DECIDED),
    ("35_questions_by_position", "- Each interrupt's value is `{\"question\": <question id>}`, one question, and its "
                                 "answer lands in `answers` under that question."):
        checked(QUESTIONS, ONE_EACH),
    ("35_questions_by_position", "- A question not in `asked` is never asked; each question in `asked` is asked until "
                                 "answered, then never again."):
        checked(QUESTIONS, IN_ORDER),
    ("35_questions_by_position", "- The run completes once every question in `asked` is answered, with `answers` holding "
                                 "exactly those; with none needed, without pausing."):
        checked(QUESTIONS, INTAKE_DONE),
    ("36_migrations", "In `agstate/pauses.py`, write **`upgrade(values, version)`** and **`migrate(values, version)`** as "
                      "their docstrings say."):
        explains("points at the docstrings, whose sentences are in TABLE"),
    ("36_migrations", "The grader draws random states of each release, with keys added by hand, and checks:"):
        explains("introduces the list of rules that follows; each item is checked on its own"),
    ("36_migrations", "- `upgrade(values, version)` is the state of release `version + 1`, its `version` set, for "
                      "`version` 1 or 2."):
        checked(MIGRATE, RELEASE),
    ("36_migrations", "- `migrate` is `upgrade` applied release by release up to `CURRENT_VERSION`; on a current state it "
                      "gives an equal state."):
        checked(MIGRATE, COMPOSES),
    ("36_migrations", "- Nothing is lost: every old item is in the new list, in order and converted; `total` is kept; a "
                      "key no release has is carried to release 2 and lands in `archive` in release 3."):
        checked(MIGRATE, LINES),  # total and archive: KEPT
    ("36_migrations", "- Both are pure; `upgrade` with a `version` outside `1..2`, `migrate` with one outside `1..3`, raise "
                      "`ValueError`."):
        checked(MIGRATE, RANGE),  # pure: PURE
    ("37_old_threads_resume", "In `agstate/pauses.py`, write **`upgrade_update(saved, version)`** and "
                              "**`build_order_graph(checkpointer=None)`** as their docstrings say."):
        explains("points at the docstrings, whose sentences are in TABLE"),
    ("37_old_threads_resume", "The grader starts and pauses a thread with each release's graph — releases 1 and 2 with "
                              "its own graphs, release 3 with your `build_order_graph` — reads `saved` from its "
                              "checkpoint as `saved_values` does, applies your update with "
                              "`build_order_graph(...).update_state(config, update)` (without `as_node`), and confirms."):
        checked(UPGRADE, RESUMES),  # what a graded run does: the scenario upgrade_run
    ("37_old_threads_resume", "So `upgrade_update(saved, 3)` is graded too: a thread already on release 3 comes through "
                              "unchanged (do not refuse 3, as `build_release_graph` does: that helper only builds the old "
                              "graphs)."):
        checked(UPGRADE, RESUMES),  # release 3 among the hand-picked cases (FIXED) and the drawn threads
    ("37_old_threads_resume", "- The update sets every key of release 3, `Overwrite` for keys with a reducer and the value "
                              "for the others."):
        checked(UPGRADE, SETS),
    ("37_old_threads_resume", "- A thread paused under any release, upgraded and resumed, completes with every line it "
                              "held (migrated) plus the new one, and the total they make."):
        checked(UPGRADE, RESUMES),
    ("37_old_threads_resume", "- Applying the update twice gives the same state as once."):
        checked(UPGRADE, TWICE),
    ("37_old_threads_resume", "- The thread stays paused at `wait` after the update, and the confirmation resumes it "
                              "there."):
        checked(UPGRADE, WAITS),
}
