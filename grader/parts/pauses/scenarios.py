"""Part F's runs that pause: the approval graph, crashed inside its fakes, and the intake graph, in the grading process.

The graph a learner's ``build_*`` returns is rebuilt here (``Remote.graph``)
and run on the grader's checkpointer with ``durability="sync"``; its nodes
run in the learner's process, their ``interrupt()`` answered from here
(``Remote.lend_interrupt``), each resume in a new learner process (the person
answers later, to another worker). The fake inbox, payments and stock are lent as
callbacks: every call is recorded here, with what the run had done by then
(paused yet, answered yet), where the learner's code cannot reach it. A crash
is the learner's process killed inside a fake's call (``Remote.kill``), before
or after the call takes effect; the run goes on in the next process as
docs/reference/part-f.md says: resumed while paused, ``invoke(None)`` otherwise.
"""

import secrets

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from grader.engine.handles import SAVER, CallbackObject, Killed, Raised
from grader.engine.remote import Remote, scenario
from grader.parts.messages.plain import stable  # uuids renamed in reading order, as Part E's reports have them
from grader.parts.pauses import scenarios_threads  # noqa: F401 - registers its scenarios
from grader.parts.pauses.model import FORM
from grader.parts.pauses.scenarios_data import plain, saver_problem

__all__ = ["approval_run", "intake_run", "ROUNDS"]

ROUNDS = 8  # invokes after the first: a correct run needs at most three (answer, crash, answer again)


class Fakes:
    """The inbox and the payments lent to the learner's code; each call recorded with where the run was."""

    def __init__(self, crash: dict | None):
        self.calls: list[dict] = []
        self.effects: dict = {}  # (fake, key) -> what its first call did
        self.crash = crash
        self.paused = False  # the run has returned an interrupt
        self.answered = None  # the answer sent, once sent
        self.remote: Remote | None = None
        self.run = 1  # which request's run a call belongs to (approval_run's second)
        self.receipts: list[str] = []  # every receipt payments.pay issued, in order

    def lent(self, remote: Remote) -> tuple[CallbackObject, CallbackObject]:
        self.remote = remote
        return CallbackObject("Inbox", {"send": self.send}), CallbackObject("Payments", {"pay": self.pay})

    def send(self, key, message):
        return self._call("send", key, {"message": message}, lambda: None)

    def pay(self, key, payee, amount):
        return self._call("pay", key, {"payee": payee, "amount": amount}, self._receipt)

    def _receipt(self) -> str:
        """A receipt no code can guess (a learner's constant "receipt-1" is not one); the rules never print it."""
        self.receipts.append(f"receipt-{secrets.token_hex(8)}")
        return self.receipts[-1]

    def _call(self, fake: str, key, args: dict, effect):
        if not isinstance(key, str):
            raise TypeError(f"{fake}'s key must be a string, not {type(key).__name__}")
        entry = {"fake": fake, "key": key, **args, "paused": self.paused, "answered": self.answered, "effect": False,
                 "run": self.run}
        self.calls.append(entry)
        # The n-th call of one fake (a learner's harmless repeats of inbox.send cannot move a crash off payments.pay).
        here = self.crash is not None and self.crash["fake"] == fake and \
            self.crash["nth"] == sum(1 for call in self.calls if call["fake"] == fake)
        if here and self.crash["when"] == "before":
            entry["crashed"] = "before"
            self.remote.kill()
        if (fake, key) not in self.effects:
            self.effects[(fake, key)] = effect()
            entry["effect"] = True
        if here:
            entry["crashed"] = "after"
            self.remote.kill()
        return self.effects[(fake, key)]


def _run(remote: Remote, saver, config: dict, build, first_input, answer_of, on_pause=None) -> dict:
    """Invoke until the run completes: the answer while paused, ``None`` after a crash; each invoke recorded."""
    invokes, graph, payload, sent = [], None, first_input, "start"
    for _ in range(ROUNDS + 1):
        try:
            if graph is None:
                remote.lend_interrupt("pauses")
                graph = remote.attempt(lambda: remote.graph(build(remote), saver))  # noqa: B023
                if not isinstance(graph, Raised):
                    graph = saver_problem(graph, saver) or graph
                if isinstance(graph, Raised):
                    return {"invokes": invokes, "raised": graph, "final": None, "next": []}
            output = remote.attempt(lambda: graph.invoke(payload, config, durability="sync"))  # noqa: B023
        except Killed:
            invokes.append({"sent": sent, "killed": True})
            remote, graph, payload, sent = remote.successor(), None, None, "continue"
            continue
        if isinstance(output, Raised):
            invokes.append({"sent": sent, "raised": output})
            return {"invokes": invokes, "raised": output, "final": None, "next": []}
        pauses = [plain(pause.value) for pause in (output.get("__interrupt__") or ())] if isinstance(output, dict) else []
        invokes.append({"sent": sent, "interrupts": pauses})
        if not pauses:
            break
        if on_pause is not None:
            on_pause()
        # The person answers later, to another worker: every resume runs in a new process, with nothing of this one's
        # memory (a node that remembers in its closure what it did before the pause would do it again there).
        remote, graph = remote.retire(), None
        payload, sent = Command(resume=answer_of(pauses[0])), "resume"
    if graph is None:  # still pausing after every round: the rules say so from the last invoke, and read what it held
        return {"invokes": invokes, "raised": None, "final": None, "held": plain(_saved_values(saver, config)),
                "next": ["(paused)"]}
    state = remote.attempt(lambda: graph.get_state(config))
    if isinstance(state, Raised):
        return {"invokes": invokes, "raised": state, "final": None, "next": []}
    return {"invokes": invokes, "raised": None, "final": plain(dict(state.values)), "next": list(state.next)}


def _saved_values(saver, config: dict) -> dict:
    """The thread's keys as the grader's checkpointer holds them (read without the learner's graph), LangGraph's own
    channels (``branch:to:ask``) left out."""
    saved = saver.get_tuple(config)
    values = saved.checkpoint["channel_values"] if saved is not None else {}
    return {key: value for key, value in values.items() if not str(key).startswith(("branch:", "__"))}


@scenario
def approval_run(remote: Remote, request, answer, crash, second=None):
    """``build_approval_graph`` asked about ``request`` and answered ``answer``, killed at ``crash``: the run and the
    fakes' calls. ``second``: another request, then run on the same fakes (another thread), approved; then ``request``
    again on a third thread, approved (``again``: keys name the request, not the thread)."""
    fakes, saver = Fakes(crash), InMemorySaver()
    config = {"configurable": {"thread_id": "approval"}, "recursion_limit": 25, "max_concurrency": 1}

    def build(remote: Remote):
        inbox, payments = fakes.lent(remote)
        return remote.call("build_approval_graph", inbox, payments, checkpointer=SAVER)

    def answer_of(_pause):
        fakes.answered = answer
        return answer

    def paused():
        fakes.paused = True

    run = _run(remote, saver, config, build, {"request": request}, answer_of, paused)
    if second is not None and run["raised"] is None:
        answer = True  # both later runs are approved
        for number, (name, asked) in enumerate([("second", second), ("again", request)], 2):  # each on a thread of its own
            fakes.paused, fakes.answered, fakes.run = False, None, number
            thread = {**config, "configurable": {"thread_id": f"approval-{number}"}}
            run[name] = _run(remote.successor(), saver, thread, build, {"request": asked}, answer_of, paused)
    # A key made of a random uuid is renamed, so a report repeats; the receipts are compared, never shown.
    return {**stable({**run, "calls": plain(fakes.calls)}), "receipts": fakes.receipts}


@scenario
def intake_run(remote: Remote, needed, answers):
    """``build_intake_graph`` with a stock that needs ``needed`` until the first pause and the rest of FORM after it;
    each pause answered from ``answers`` by the question it shows."""
    saver, asked_stock, flipped = InMemorySaver(), [], [False]
    config = {"configurable": {"thread_id": "intake"}, "recursion_limit": 25, "max_concurrency": 1}

    def needs(question):
        asked_stock.append({"question": plain(question), "after_first_pause": flipped[0]})
        return (question in needed) != flipped[0] if isinstance(question, str) else False

    def build(remote: Remote):
        return remote.call("build_intake_graph", CallbackObject("Stock", {"needs": needs}), checkpointer=SAVER)

    def answer_of(pause):
        question = pause.get("question") if isinstance(pause, dict) else None
        return answers.get(question, "(no such question)") if question in FORM else "(no such question)"

    def paused():
        flipped[0] = True

    return stable({**_run(remote, saver, config, build, {}, answer_of, paused), "stock": asked_stock})
