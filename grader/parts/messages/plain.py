"""Part E's messages as plain data, on both sides of the boundary: a spec dict to a LangChain message and back.

The grading side writes a conversation as dicts (``grader.parts.messages.model``);
``message`` builds LangChain's message from one, ``plain`` turns what the
learner's code returned back into one (a value that is not a message says
what it is instead), and ``stable`` renames the random ids add_messages gives.
Read by the grading side (its scenarios); it imports neither side, and the
learner's process never needs it.
"""

import re

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

__all__ = ["message", "plain", "plains", "stable", "REMOVE_ALL"]

REMOVE_ALL = "__remove_all__"  # the grader's name for REMOVE_ALL_MESSAGES on the wire


def message(spec: dict):
    kind, fields = spec["type"], {"id": spec.get("id")}
    if kind == "remove":
        return RemoveMessage(id=REMOVE_ALL_MESSAGES if spec["id"] == REMOVE_ALL else spec["id"])
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


def plain(message) -> dict:
    """A message as plain data; anything else, or a message whose id, text or tool calls are not plain strings,
    says what it is instead (the grading side compares exact builtins)."""
    kind = next((name for cls, name in _KINDS if isinstance(message, cls)), None)
    if kind is None:
        return {"type": f"not a message: {type(message).__name__}"}
    ident, content = message.id, message.content
    if not (ident is None or isinstance(ident, str)) or not isinstance(content, str):
        return {"type": f"not a message: a {kind} message whose id or content is not a str"}
    plain = {"type": kind, "id": REMOVE_ALL if ident == REMOVE_ALL_MESSAGES else ident, "content": content}
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


def plains(value):
    return [plain(m) for m in value] if isinstance(value, list) else {"type": f"not a list: {type(value).__name__}"}


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def stable(reply):
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


