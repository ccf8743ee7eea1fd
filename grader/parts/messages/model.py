"""What a correct part E does, on plain messages (grading side; judges nothing, trusts nothing of the learner's).

A message crosses the wire as a dict (``grader.parts.messages.probes``):
``{"type": "system"|"human"|"ai"|"tool"|"remove", "id": str | None, "content": str}``,
with ``tool_calls`` (``[{"name", "args", "id"}]``) on an AI message and
``tool_call_id`` (and ``status``) on a tool message. Every function here is
the grader's own reading of LAB-SPEC §10, written without the reference.
"""

__all__ = ["REMOVE_ALL", "problems", "model_add", "model_trim", "model_reduce", "model_summary", "fits", "text_of"]

REMOVE_ALL = "__remove_all__"  # langgraph.graph.message.REMOVE_ALL_MESSAGES


def problems(history: list) -> list[str]:
    """How ``history`` breaks what chat APIs check, one phrase each (``[]``: valid): the grader's own reading."""
    found, seen, open_calls, answering = [], set(), set(), False
    for position, message in enumerate(history):
        kind, at = message.get("type"), f"message {position} ({message.get('type')}, id {message.get('id')!r})"
        if not message.get("id"):
            found.append(f"{at} has no id")
        elif message["id"] in seen:
            found.append(f"{at} repeats an id")
        seen.add(message.get("id"))
        if kind == "system" and position:
            found.append(f"{at} is a system message after the first")
        if kind == "tool":
            if not answering or message.get("tool_call_id") not in open_calls:
                found.append(f"{at} answers the tool call {message.get('tool_call_id')!r}, which no AI message just "
                             "before it asked for (an orphaned tool result)")
            open_calls.discard(message.get("tool_call_id"))
            continue
        if open_calls:
            found.append(f"{at} comes before the tool call(s) {sorted(open_calls)} are answered")
        open_calls, answering = set(), False
        if kind == "ai" and message.get("tool_calls"):
            open_calls, answering = {call["id"] for call in message["tool_calls"]}, True
    others = [m for m in history if m.get("type") != "system"]
    if not others or others[0].get("type") != "human":
        found.append("it does not start with a human message" if others else "it has no human message")
    return found


def model_add(old: list, new: list) -> list:
    """``add_messages(old, new)`` for writes that carry ids: edit in place, append, remove, remove all."""
    last_all = max((i for i, m in enumerate(new) if m["type"] == "remove" and m["id"] == REMOVE_ALL), default=None)
    if last_all is not None:
        return [dict(m) for m in new[last_all + 1:]]
    merged = [dict(m) for m in old]
    where = {m["id"]: i for i, m in enumerate(merged)}
    removed = set()
    for message in new:
        if message["type"] == "remove":
            removed.add(message["id"])
        elif message["id"] in where:
            merged[where[message["id"]]] = dict(message)
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
