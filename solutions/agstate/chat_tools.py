"""Provided helper (not an exercise, never graded): a scripted chat model, fake tools, and a provider's history check.

Part E runs a chat agent with no API key and no network: ``ScriptedChatModel``
answers from a script, asking for tool calls first when the script says so,
and checks every history it receives the way chat APIs do: an invalid one is
refused with ``ProviderError``, as a real provider answers HTTP 400.
Deterministic: the same history gives the same answer, with the same ids.

``conversation_problems`` is that check, one sentence per problem (``[]``
when the history is valid):

- every message has a non-empty id, and no id is used twice;
- at most one ``SystemMessage``, and only first;
- the first other message is a ``HumanMessage``;
- a ``ToolMessage`` directly follows (after other ``ToolMessage`` s only) the
  ``AIMessage`` whose not-yet-answered tool call it answers;
- every tool call is answered before the next message that is not a
  ``ToolMessage`` (calls still open at the very end are pending, not a problem).
"""

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

__all__ = ["ProviderError", "ScriptedChatModel", "TOOLS", "conversation_problems", "show_history"]


class ProviderError(ValueError):
    """What a chat API answers an invalid history with (HTTP 400, ``invalid_request_error``)."""


def conversation_problems(messages: list) -> list[str]:
    """One sentence per way ``messages`` breaks the rules chat APIs enforce (the module's docstring); ``[]``: valid."""
    problems, seen, open_calls, after_calls = [], set(), set(), False
    for position, message in enumerate(messages):
        where = f"message {position} ({_role(message)})"
        if not isinstance(message, BaseMessage):
            problems.append(f"{where} is not a chat message")
            continue
        if not message.id:
            problems.append(f"{where} has no id")
        elif message.id in seen:
            problems.append(f"{where} repeats the id {message.id!r}")
        seen.add(message.id)
        if isinstance(message, SystemMessage) and position > 0:
            problems.append(f"{where} is a system message that is not first")
        if isinstance(message, ToolMessage):
            if not after_calls or message.tool_call_id not in open_calls:
                problems.append(f"{where} answers the tool call {message.tool_call_id!r}, which the AI message "
                                "just before did not ask for or was answered already")
            open_calls.discard(message.tool_call_id)
            continue
        if open_calls:
            problems.append(f"{where} comes before the tool call(s) {sorted(open_calls)} are answered")
        open_calls, after_calls = set(), False
        if isinstance(message, AIMessage) and message.tool_calls:
            open_calls, after_calls = {call["id"] for call in message.tool_calls}, True
    others = [m for m in messages if not isinstance(m, SystemMessage)]
    if not others or not isinstance(others[0], HumanMessage):
        problems.append("the conversation does not start with a human message" if others else
                        "the conversation has no human message")
    return problems


def _role(message) -> str:
    return getattr(message, "type", type(message).__name__)


class ScriptedChatModel:
    """A chat model that answers from ``script``: latest human text -> steps, each a list of tool calls or the answer.

    A step that is a list of ``(tool_name, args)`` asks for those tool calls; a
    ``str`` is the final answer. The step is chosen by how many AI messages
    follow the latest human message in the history received, so a retried
    call answers the same. ``received`` keeps every history it was given.
    """

    def __init__(self, script: dict, default: str = "I can only answer what my script says."):
        self.script, self.default, self.received = script, default, []

    def invoke(self, messages: list) -> AIMessage:
        messages = list(messages)
        self.received.append(messages)
        problems = conversation_problems(messages)
        if problems:
            raise ProviderError(f"400 invalid_request_error: {problems[0]}")
        humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
        human = messages[humans[-1]]
        step = sum(isinstance(m, AIMessage) for m in messages[humans[-1]:])
        steps = self.script.get(human.content, [self.default])
        answer = steps[min(step, len(steps) - 1)]
        message_id = f"ai-{human.id}-{step}"
        if isinstance(answer, str):
            return AIMessage(content=answer, id=message_id)
        calls = [{"name": name, "args": dict(args), "id": f"call-{human.id}-{step}-{k}", "type": "tool_call"}
                 for k, (name, args) in enumerate(answer)]
        return AIMessage(content="", tool_calls=calls, id=message_id)


def lookup_order(order_id: str) -> str:
    """The fake order system: an order's status."""
    return f"order {order_id}: shipped" if order_id.endswith(("1", "3", "5", "7", "9")) else f"order {order_id}: packing"


def shipping_eta(order_id: str) -> str:
    """The fake carrier: days until delivery."""
    days = sum(map(ord, order_id)) % 5 + 1
    return f"{days} day{'s' * (days != 1)}"


TOOLS = {"lookup_order": lookup_order, "shipping_eta": shipping_eta}


def show_history(messages: list) -> None:
    """Print a history one message a line: role, id, text or tool calls."""
    for message in messages:
        calls = getattr(message, "tool_calls", None)
        text = f"calls {', '.join(call['name'] for call in calls)}" if calls else message.content
        print(f"{_role(message):>6} [{message.id}] {text}")
