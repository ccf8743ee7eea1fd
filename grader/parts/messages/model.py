"""What a correct part E does, on plain messages (grading side; judges nothing, trusts nothing of the learner's).

A message crosses the wire as a dict (``grader.parts.messages.probes``):
``{"type": "system"|"human"|"ai"|"tool"|"remove", "id": str | None, "content": str}``,
with ``tool_calls`` (``[{"name", "args", "id"}]``) on an AI message and
``tool_call_id`` (and ``status``) on a tool message. Every function here is
the grader's own reading of ``agstate/messages.py``'s docstrings, written without the reference.
"""

from grader.i18n import _

__all__ = ["REMOVE_ALL", "UnknownRemoval", "problems", "model_add", "model_trim", "model_reduce", "model_summary", "fits",
           "text_of", "simulate_chat", "comparable", "in_rounds"]

REMOVE_ALL = "__remove_all__"  # langgraph.graph.message.REMOVE_ALL_MESSAGES


def problems(history: list) -> list[str]:
    """How ``history`` breaks what chat APIs check, one phrase each (``[]``: valid): the grader's own reading."""
    found, seen, open_calls, answering = [], set(), set(), False
    for position, message in enumerate(history):
        kind, at = message.get("type"), _("message {position} ({get}, id {get2})").format(
                                            position=position, get=message.get('type'), get2=repr(message.get('id')))
        if not message.get("id"):
            found.append(_("{at} has no id").format(at=at))
        elif message["id"] in seen:
            found.append(_("{at} repeats an id").format(at=at))
        seen.add(message.get("id"))
        if kind == "system" and position:
            found.append(_("{at} is a system message after the first").format(at=at))
        if kind == "tool":
            if not answering or message.get("tool_call_id") not in open_calls:
                found.append(_("{at} answers the tool call {get}, which no AI message just before it asked for (an orphaned tool "
                               "result)").format(at=at, get=repr(message.get('tool_call_id'))))
            open_calls.discard(message.get("tool_call_id"))
            continue
        if open_calls:
            found.append(_("{at} comes before the tool call(s) {open_calls} are answered").format(at=at, open_calls=sorted(open_calls)))
        open_calls, answering = set(), False
        if kind == "ai" and message.get("tool_calls"):
            open_calls, answering = {call["id"] for call in message["tool_calls"]}, True
    others = [m for m in history if m.get("type") != "system"]
    if not others or others[0].get("type") != "human":
        found.append(_("it does not start with a human message") if others else _("it has no human message"))
    return found


class UnknownRemoval(ValueError):
    """A RemoveMessage names an id the history does not hold: add_messages raises ValueError."""


def model_add(old: list, new: list) -> list:
    """``add_messages(old, new)`` for messages that carry ids, step for step as LangGraph 1.2 does it: a remove-all
    keeps only what follows it; a stored id is replaced in place (or marked removed, or un-marked by a later
    message of that id); a new id is appended; removing an id not held raises (``UnknownRemoval``)."""
    last_all = max((i for i, m in enumerate(new) if m["type"] == "remove" and m["id"] == REMOVE_ALL), default=None)
    if last_all is not None:
        return [dict(m) for m in new[last_all + 1:]]
    merged = [dict(m) for m in old]
    where = {m["id"]: i for i, m in enumerate(merged)}
    removed = set()
    for message in new:
        if message["id"] in where:
            if message["type"] == "remove":
                removed.add(message["id"])
            else:
                removed.discard(message["id"])
                merged[where[message["id"]]] = dict(message)
        elif message["type"] == "remove":
            raise UnknownRemoval(message["id"])
        else:
            where[message["id"]] = len(merged)
            merged.append(dict(message))
    return [m for m in merged if m["id"] not in removed]


def _cuts(history: list) -> tuple[int, list[int]]:
    start = 1 if history and history[0]["type"] == "system" else 0
    return start, [k for k, m in enumerate(history[start:]) if m["type"] == "human"]


def model_trim(history: list, budget: int) -> list[str]:
    """The ids ``trim_removals(history, budget)`` removes, in order: the shortest allowed prefix that fits, else the
    longest allowed (a cut only before a human message: no tool result is orphaned, the kept part starts human)."""
    if len(history) <= budget:
        return []
    start, cuts = _cuts(history)
    if not cuts:
        return []
    fitting = [k for k in cuts if len(history) - k <= budget]
    cut = fitting[0] if fitting else cuts[-1]
    return [m["id"] for m in history[start:start + cut]]


def fits(history: list, budget: int) -> bool:
    """Whether nothing more may be trimmed: within the budget, or cut at the latest human message already."""
    start, cuts = _cuts(history)
    return len(history) <= budget or cuts in ([], [0])


def model_reduce(old: list | None, new: list, budget: int) -> list:
    """``budgeted(budget)(old, new)``: add, then trim."""
    merged = model_add(old or [], new)
    gone = set(model_trim(merged, budget))
    return [m for m in merged if m["id"] not in gone]


def text_of(message: dict) -> str:
    """``role: text [id]``, an AI message that only calls tools named by its calls."""
    text = message.get("content") or ""
    if not text and message.get("tool_calls"):
        text = "calls " + ", ".join(call["name"] for call in message["tool_calls"])
    return f"{message['type']}: {text} [{message['id']}]"


def model_summary(history: list, keep_last: int) -> tuple[str, list[str]]:
    """``summarize_removals(history, keep_last)``: the summary and the ids removed."""
    start = 1 if history and history[0]["type"] == "system" else 0
    rest = history[start:]
    cut = len(rest) - keep_last
    if cut >= len(rest):
        cut = len(rest) - 1
    while cut > 0 and rest[cut]["type"] != "human":
        cut -= 1
    removed = rest[:max(cut, 0)]
    return "; ".join(text_of(m) for m in removed), [m["id"] for m in removed]


def simulate_chat(script: dict, turns: list, order: list, budget: int, results: dict,
                  before_trim: list | None = None) -> list:
    """What a correct chat graph gives the model, call by call, over ``turns`` invoked in ``order`` on one thread.

    The model's messages (and their ids) follow from the script; a tool message is ``{"type": "tool",
    "tool_call_id", "status", "content"}`` with the content ``results[name](args)`` for a tool that answers, None
    (any text) for one that fails, and the id None: its id is the learner's to choose.
    Returns one history per model call and the history held after each invocation, each message as the rules
    compare it (``comparable``); ``before_trim``, when given, gets for each model call the messages the last write
    before it merged, before the trim took its share (what budgeted's trim saw).
    """
    held, calls, after = [], [], []
    merged = []  # the last write's messages, merged, before the trim

    def reduce(new: list) -> list:
        merged[:] = model_add(held, new)
        return model_reduce(held, new, budget)

    for index in order:
        turn = turns[index]
        answered = held and held[-1]["type"] == "ai" and not held[-1].get("tool_calls")
        if any(m["id"] == turn["id"] for m in held) and answered:
            after.append([comparable(m) for m in held])
            continue  # a turn answered already: no model call
        held = reduce([{"type": "human", "id": turn["id"], "content": turn["text"]}])
        steps = script.get(turn["text"], ["(not in the script)"])
        for step in range(len(steps)):
            calls.append([comparable(m) for m in held])
            if before_trim is not None:
                before_trim.append([dict(m) for m in merged])
            answer, message_id = steps[step], f"ai-{turn['id']}-{step}"
            if isinstance(answer, str):
                held = reduce([{"type": "ai", "id": message_id, "content": answer}])
                break
            tool_calls = [{"name": name, "args": dict(args), "id": f"call-{turn['id']}-{step}-{k}"}
                          for k, (name, args) in enumerate(answer)]
            held = reduce([{"type": "ai", "id": message_id, "content": "", "tool_calls": tool_calls}])
            answers = [{"type": "tool", "id": f"(tool message {call['id']})", "tool_call_id": call["id"],
                        "status": "success" if call["name"] in results else "error",
                        "content": results[call["name"]](call["args"]) if call["name"] in results else None}
                       for call in tool_calls]
            held = reduce(answers)
        after.append([comparable(m) for m in held])
    return calls, after


def in_rounds(history: list) -> list:
    """``comparable`` messages with each run of tool messages sorted: one round's results may come in any order."""
    out, run = [], []
    for message in history:
        if message[0] == "tool":
            run.append(message)
            continue
        out += sorted(run, key=repr) + [message]
        run = []
    return out + sorted(run, key=repr)


def comparable(message: dict) -> tuple:
    """A message as the graph rules compare it: a tool message's id and a failed tool's text are the learner's."""
    if message.get("type") == "tool":
        content = message.get("content") if message.get("status") != "error" else None
        return ("tool", message.get("tool_call_id"), message.get("status"), content)
    calls = tuple((c.get("name"), str(c.get("args")), c.get("id")) for c in message.get("tool_calls") or [])
    return (message.get("type"), message.get("id"), message.get("content"), calls)
