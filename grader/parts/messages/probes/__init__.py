"""Part E's probes: the reducer, the trim, the summary, ChatState and the chat graph, run in the learner's process.

Messages cross the wire as plain dicts (``grader.parts.messages.model``):
``_message`` builds LangChain's messages from them here, ``_plain`` turns
what the learner's code returns back into dicts (a value that is not a
message says what it is instead). The chat graph's model and tools are the
grader's own (``_scripted_model``), never the learner's ``agstate.chat_tools``.
"""

import copy
import re

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from typing_extensions import get_type_hints

from grader.child.probes import Raised, probe

__all__ = ["reduce", "trim", "summarize", "chat_channels", "budget_graph", "chat_run"]

_REMOVE_ALL = "__remove_all__"  # the grader's name for REMOVE_ALL_MESSAGES on the wire


def _message(spec: dict):
    kind, fields = spec["type"], {"id": spec.get("id")}
    if kind == "remove":
        return RemoveMessage(id=REMOVE_ALL_MESSAGES if spec["id"] == _REMOVE_ALL else spec["id"])
    if kind == "ai":
        calls = [{"name": c["name"], "args": dict(c["args"]), "id": c["id"], "type": "tool_call"}
                 for c in spec.get("tool_calls", [])]
        return AIMessage(content=spec.get("content", ""), tool_calls=calls, **fields)
    if kind == "tool":
        return ToolMessage(content=spec.get("content", ""), tool_call_id=spec["tool_call_id"],
                           status=spec.get("status", "success"), **fields)
    return {"system": SystemMessage, "human": HumanMessage}[kind](content=spec.get("content", ""), **fields)


_KINDS = ((RemoveMessage, "remove"), (SystemMessage, "system"), (HumanMessage, "human"), (AIMessage, "ai"),
          (ToolMessage, "tool"))


def _plain(message) -> dict:
    """A message as plain data; anything else, or a message whose id, text or tool calls are not plain strings,
    says what it is instead (the grading side compares exact builtins)."""
    kind = next((name for cls, name in _KINDS if isinstance(message, cls)), None)
    if kind is None:
        return {"type": f"not a message: {type(message).__name__}"}
    ident, content = message.id, message.content
    if not (ident is None or isinstance(ident, str)) or not isinstance(content, str):
        return {"type": f"not a message: a {kind} message whose id or content is not a str"}
    plain = {"type": kind, "id": _REMOVE_ALL if ident == REMOVE_ALL_MESSAGES else ident, "content": content}
    if kind == "ai" and message.tool_calls:
        calls = [{"name": c.get("name"), "args": c.get("args"), "id": c.get("id")} for c in message.tool_calls]
        if not all(isinstance(c["name"], str) and isinstance(c["id"], str) for c in calls):
            return {"type": "not a message: an AI message whose tool call names or ids are not str"}
        plain["tool_calls"] = calls
    if kind == "tool":
        if not isinstance(message.tool_call_id, str):
            return {"type": "not a message: a tool message whose tool_call_id is not a str"}
        plain["tool_call_id"], plain["status"] = message.tool_call_id, message.status
    return plain


def _plains(value):
    return [_plain(m) for m in value] if isinstance(value, list) else {"type": f"not a list: {type(value).__name__}"}


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _stable(reply):
    """``reply`` with each random uuid (an id add_messages gave a message) renamed ``id-1``, ``id-2``… in reading
    order: the same seed gives the same report, and equal ids stay equal."""
    names = {}

    def rename(value):
        if isinstance(value, str):
            return _UUID.sub(lambda m: names.setdefault(m.group(0), f"id-{len(names) + 1}"), value)
        if isinstance(value, list):
            return [rename(item) for item in value]
        if isinstance(value, dict):
            return {key: rename(item) for key, item in value.items()}
        return value

    return rename(reply)


@probe
def reduce(ctx, budget, writes, old=None):
    """``budgeted(budget)`` applied write after write from ``old``: each step's result, and what it did to its arguments."""
    reducer = ctx.attempt(lambda: ctx.get("budgeted")(budget))
    if isinstance(reducer, Raised):
        return reducer
    state, steps = None if old is None else [_message(spec) for spec in old], []
    for write in writes:
        new = [_message(spec) for spec in write]
        held_before = _plains(state) if state is not None else None
        result = ctx.attempt(lambda: reducer(state, new))  # noqa: B023 (called at once)
        if isinstance(result, Raised):
            return _stable({"steps": steps, "raised": result})
        held_after = _plains(state) if state is not None else None
        steps.append({"result": _plains(result), "old_now": held_after if held_after != held_before else None,
                      "new_after": [_plain(m) for m in new], "returned_old": result is state and state is not None})
        state = result
    return _stable({"steps": steps, "raised": None})


@probe
def trim(ctx, history, budget):
    messages = [_message(spec) for spec in history]
    given = list(messages)
    removals = ctx.attempt(lambda: ctx.get("trim_removals")(messages, budget))
    if isinstance(removals, Raised):
        return removals
    return _stable({"removals": _plains(removals),
                    "unchanged": messages == given and [_plain(m) for m in messages] == history})


@probe
def summarize(ctx, history, keep_last):
    messages = [_message(spec) for spec in history]
    answer = ctx.attempt(lambda: ctx.get("summarize_removals")(messages, keep_last))
    if isinstance(answer, Raised):
        return answer
    if not isinstance(answer, tuple) or len(answer) != 2:
        return {"shape": type(answer).__name__}
    summary, removals = answer
    return _stable({"shape": "pair", "summary": summary if isinstance(summary, str) else {"not a str": type(summary).__name__},
                    "removals": _plains(removals), "unchanged": [_plain(m) for m in messages] == history})


@probe
def chat_channels(ctx, histories, write):
    """ChatState's keys, each channel's kind, and its messages reducer applied to each of ``histories`` and ``write``."""
    hints = ctx.attempt(lambda: (get_type_hints(ctx.get("ChatState"), include_extras=True), StateGraph(ctx.get("ChatState"))))
    if isinstance(hints, Raised):
        return hints
    keys, builder = hints
    kinds = {key: type(builder.channels.get(key)).__name__ for key in keys}
    operator = getattr(builder.channels.get("messages"), "operator", None)
    merged = None
    if operator is not None:
        merged = [ctx.attempt(lambda: _plains(operator([_message(s) for s in history], [_message(s) for s in write])))  # noqa: B023
                  for history in histories]
    return _stable({"keys": sorted(keys), "channels": kinds, "merged": merged,
                    "max_messages": ctx.attempt(lambda: ctx.get("MAX_MESSAGES"))})


@probe
def budget_graph(ctx, steps):
    """A chain of nodes over ChatState, each writing its ``steps`` entry to messages: the messages after every step."""
    schema = ctx.sub_schema("ChatState", ["messages"])
    graph = StateGraph(schema)
    names = [f"n{i}" for i in range(len(steps))]
    for name, write in zip(names, steps):
        graph.add_node(name, lambda state, write=write: {"messages": [_message(spec) for spec in write]})
    for before, after in zip([START, *names], [*names, END]):
        graph.add_edge(before, after)
    run = ctx.attempt(lambda: [_plains(chunk.get("messages", [])) for chunk in
                               graph.compile().stream({}, {"recursion_limit": len(steps) + 5}, stream_mode="values")])
    return run if isinstance(run, Raised) else _stable({"states": run[1:] if len(run) > len(steps) else run})


def _scripted_model(script: dict, received: list):
    """The grader's chat model: answers the latest human text from ``script`` and records each history it is given.

    What it records lives in this closure, not on the object: the learner's graph holds the model and could clear
    an attribute; reaching a closure takes ``__closure__``, which the grader refuses in a lab module (grader.sandbox.reach).
    """

    class ScriptedChatModel:
        __slots__ = ()

        def invoke(self, messages):
            history = [_plain(m) for m in messages]
            received.append(history)
            humans = [i for i, m in enumerate(history) if m["type"] == "human"]
            if not humans:
                return AIMessage(content="(no human message)", id=f"ai-none-{len(received)}")
            human = history[humans[-1]]
            step = sum(m["type"] == "ai" for m in history[humans[-1]:])
            steps = script.get(human["content"], ["(not in the script)"])
            answer = steps[min(step, len(steps) - 1)]
            if isinstance(answer, str):
                return AIMessage(content=answer, id=f"ai-{human['id']}-{step}")
            calls = [{"name": name, "args": dict(args), "id": f"call-{human['id']}-{step}-{k}", "type": "tool_call"}
                     for k, (name, args) in enumerate(answer)]
            return AIMessage(content="", tool_calls=calls, id=f"ai-{human['id']}-{step}")

    return ScriptedChatModel()


def _tools():
    def lookup_order(order_id: str) -> str:
        """The order's status."""
        return f"order {order_id}: shipped"

    def shipping_eta(order_id: str) -> str:
        """Days until delivery (the carrier is down: it raises)."""
        raise RuntimeError(f"carrier down for {order_id}")

    return {"lookup_order": lookup_order, "shipping_eta": shipping_eta}


@probe
def chat_run(ctx, script, turns, budget, checkpointed, resend):
    """Each turn one invoke: with a checkpointer on one thread, or (not ``checkpointed``) passing the messages on.

    After every turn: the output's messages, the checkpoint's (read from the saver this probe made, not through
    the learner's graph), and how many histories the model got; then each turn in ``resend`` invoked again.
    """
    from langgraph.checkpoint.memory import InMemorySaver

    received, saver = [], InMemorySaver()
    model = _scripted_model(copy.deepcopy(script), received)
    graph = ctx.attempt(lambda: ctx.get("build_chat_graph")(model, _tools(), checkpointer=saver if checkpointed else None,
                                                              max_messages=budget))
    if isinstance(graph, Raised):
        return graph
    config, done, carried = {"configurable": {"thread_id": "chat"}, "recursion_limit": 40}, [], []
    for index in [*range(len(turns)), *resend]:
        human = HumanMessage(content=turns[index]["text"], id=turns[index]["id"])
        sent = {"messages": [human]} if checkpointed else {"messages": [*carried, human]}
        calls_before = len(received)
        output = ctx.attempt(lambda: graph.invoke(sent, config if checkpointed else {"recursion_limit": 40}))  # noqa: B023
        if isinstance(output, Raised):
            return _stable({"turns": done, "received": received, "raised": output, "at": index})
        messages = output.get("messages", []) if isinstance(output, dict) else output
        carried = list(messages) if isinstance(messages, list) else []
        saved = saver.get_tuple(config) if checkpointed else None
        stored = dict(saved.checkpoint["channel_values"]) if saved is not None else {}
        done.append({"turn": index, "output": _plains(messages), "keys": sorted(output) if isinstance(output, dict) else [],
                     "stored": _plains(stored.get("messages", [])), "stored_keys": sorted(map(str, stored)),
                     "model_calls": len(received) - calls_before})
    return _stable({"turns": done, "received": received, "raised": None, "at": None})
