"""Part E's examples: random valid conversations (roles, tool calls, ids), writes to them, budgets and scripts.

A conversation is a list of plain messages (``grader.parts.messages.model``):
an optional system message, then turns, each a human message, zero or more
tool rounds (an AI message calling tools, then one tool message per call, in
any order) and an AI answer (the last turn may stop before it: calls still
pending). Ids are unique within an example and differ in shape.
"""

from hypothesis import strategies as st

__all__ = ["conversations", "budgets", "trim_cases", "write_sequences", "keep_lasts", "bad_budgets", "bad_keep_lasts",
           "graph_turns", "scripts", "BIG"]

BIG = 100  # a budget no upsert example reaches: the reducer's merging alone is judged
_TEXTS = st.sampled_from(["hi", "where is my order?", "ok", "", "thanks!", "été", "two words"])
_TOOLS = st.sampled_from(["lookup_order", "shipping_eta", "search"])
_PREFIXES = st.sampled_from(["m", "msg-", "id_", "é"])


class _Ids:
    def __init__(self, prefix: str):
        self.prefix, self.count = prefix, 0

    def next(self) -> str:
        self.count += 1
        return f"{self.prefix}{self.count}"


def _turn(draw, ids: _Ids, rounds: int, answered: bool, calls: int = 3) -> list:
    turn = [{"type": "human", "id": ids.next(), "content": draw(_TEXTS)}]
    for _ in range(rounds):
        made = [{"name": draw(_TOOLS), "args": {"order_id": draw(st.sampled_from(["17", "42"]))}, "id": ids.next()}
                for _ in range(draw(st.integers(1, calls)))]
        turn.append({"type": "ai", "id": ids.next(), "content": draw(_TEXTS), "tool_calls": made})
        for call in draw(st.permutations(made)):
            turn.append({"type": "tool", "id": ids.next(), "content": draw(_TEXTS), "tool_call_id": call["id"],
                         "status": "success"})
    if answered:
        turn.append({"type": "ai", "id": ids.next(), "content": draw(_TEXTS)})
    elif len(turn) > 1 and draw(st.booleans()):  # the last turn stopped with calls pending: some results still to come
        last_call = max(i for i, m in enumerate(turn) if m["type"] == "ai")
        turn = turn[:last_call + 1 + draw(st.integers(0, len(turn) - last_call - 2))]
    return turn


@st.composite
def conversations(draw, max_turns: int = 5, max_rounds: int = 2, calls: int = 3):
    ids = _Ids(draw(_PREFIXES))
    history = [{"type": "system", "id": ids.next(), "content": "be brief"}] if draw(st.booleans()) else []
    turns = draw(st.integers(1, max_turns))
    for index in range(turns):
        last = index == turns - 1
        history += _turn(draw, ids, draw(st.integers(0, max_rounds)), not last or draw(st.booleans()), calls)
    return history


budgets = st.integers(4, 14)


@st.composite
def trim_cases(draw):
    """A valid history and a budget: any budget, or one that a cut of the history meets exactly, misses by one or
    meets with one to spare (an off-by-one trim, or one that leaves the system message out of its count, shows
    only there)."""
    history = draw(conversations())
    if draw(st.booleans()):
        return history, draw(budgets)
    humans = [i for i, m in enumerate(history) if m["type"] == "human"]
    system = 1 if history[0]["type"] == "system" else 0
    return history, max(4, system + len(history) - draw(st.sampled_from(humans)) + draw(st.integers(-1, 1)))


keep_lasts = st.integers(0, 9)
# Not an int >= 4 (or >= 0): too small, and values that only look like an int.
bad_budgets = st.one_of(st.integers(-2, 3), st.sampled_from([8.0, "8", True, None]))
bad_keep_lasts = st.one_of(st.integers(-3, -1), st.sampled_from([2.0, "2", None]))


@st.composite
def write_sequences(draw):
    """Writes to a reducer: a conversation sent in pieces, then edits, removals, re-sends and a clear."""
    history = draw(conversations(max_turns=4))
    cuts = sorted(draw(st.sets(st.integers(1, len(history)), max_size=3)) | {len(history)})
    writes = [history[a:b] for a, b in zip([0, *cuts], cuts) if a < b]
    held = list(history)
    for _ in range(draw(st.integers(0, 4))):
        move = draw(st.sampled_from(["edit", "resend", "remove", "append", "clear"]))
        if move == "edit":
            target = draw(st.sampled_from(held))
            writes.append([{**target, "content": f"{target['content']} (edited)"}])
        elif move == "resend":  # not a removal: removing an id no longer held raises, as add_messages does
            if not any(m["type"] == "remove" for m in writes[-1]):
                writes.append(list(writes[-1]))
        elif move == "remove":
            starts = [i for i, m in enumerate(held) if m["type"] == "human"]
            gone = held[:draw(st.sampled_from(starts))] if len(starts) > 1 else []
            if gone:
                writes.append([{"type": "remove", "id": m["id"]} for m in gone])
                held = held[len(gone):]
        elif move == "append":
            more = _turn(draw, _Ids(f"n{len(writes)}-"), draw(st.integers(0, 1)), True)
            writes.append(more)
            held += more
        else:
            fresh = _turn(draw, _Ids(f"c{len(writes)}-"), 0, True)
            writes.append([{"type": "remove", "id": "__remove_all__"}, *fresh])
            held = fresh
    return writes


@st.composite
def graph_turns(draw, budget: int):
    """Writes of a chain of nodes: whole turns of at most ``budget`` messages, and now and then a shorter list or []."""
    ids, held, steps = _Ids(draw(_PREFIXES)), [], []
    for _ in range(draw(st.integers(1, 6))):
        if held and draw(st.integers(0, 4)) == 0:
            steps.append(draw(st.sampled_from([[], held[-1:], held[-2:]])))  # changes nothing
            continue
        turn = _turn(draw, ids, draw(st.integers(0, 1)), True, calls=max(1, min(3, budget - 3)))
        steps.append(turn)
        held += turn
    return steps


@st.composite
def scripts(draw):
    """A scripted chat: turns (text, id) and what the model answers each, with tool calls some of them fail on."""
    count, script, turns = draw(st.integers(1, 4)), {}, []
    for index in range(count):
        text = f"question {index}: {draw(_TEXTS)}"
        steps = []
        if draw(st.booleans()):
            steps.append([(draw(st.sampled_from(["lookup_order", "lookup_order", "shipping_eta", "unknown_tool"])),
                           {"order_id": draw(st.sampled_from(["17", "42", "x"]))})
                          for _ in range(draw(st.integers(1, 2)))])
        steps.append(f"answer {index}")
        script[text] = steps
        turns.append({"text": text, "id": f"u{index}"})
    return {"script": script, "turns": turns, "budget": draw(st.integers(5, 9))}
