"""Part E — the messages key: upsert by id, remove by id, trim without breaking the conversation.

Every chat agent's state has ``messages``. With no merge rule it keeps only
the last turn; with ``operator.add`` a retried model call is appended twice
and nothing can be edited or removed. LangGraph's ``add_messages`` merges by
message id instead, and removes with ``RemoveMessage``. Keeping the history
short is then a matter of removals that leave a conversation a chat API
still accepts (``conversation_problems`` says what it checks).

Rules every function here follows:
- a budget (``max_messages``) is an int, not a bool, of at least 4; it counts
  every message, the system message included;
- inputs are never mutated; removals are ``RemoveMessage`` s, in history order.

Notebooks: 28_upsert_by_id … 32_chat_graph. Check with ``check("messages")``.
"""

from collections.abc import Callable
from typing import Annotated

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from agstate.chat_tools import conversation_problems

__all__ = [
    "MAX_MESSAGES",
    "conversation_problems",
    "trim_removals",
    "budgeted",
    "ChatState",
    "summarize_removals",
    "DECISIONS",
    "build_chat_graph",
]

MAX_MESSAGES = 8  # any int >= 4


def _check_budget(max_messages) -> None:
    if type(max_messages) is not int or max_messages < 4:
        raise ValueError(f"a message budget is an int >= 4, not {max_messages!r}")


def trim_removals(messages: list[AnyMessage], max_messages: int = MAX_MESSAGES) -> list[RemoveMessage]:
    """The removals that bring a valid history to at most ``max_messages`` messages, oldest first.

    The leading system message is never removed. The latest human message and
    everything after it are kept. An AI message with tool calls and the tool
    messages answering it go together or not at all. The first message kept
    after the system message is a human message. The shortest such prefix is
    removed; when none meets the budget, the longest the rules allow.
    ``[]`` when nothing needs removing. Raises ``ValueError`` for a bad budget.
    """
    ### BEGIN SOLUTION messages.trim
    _check_budget(max_messages)
    if len(messages) <= max_messages:
        return []
    start = 1 if messages and isinstance(messages[0], SystemMessage) else 0
    rest = list(messages[start:])
    # A cut may only fall on a human message: then no tool call is split from its results (they follow their
    # AI message directly) and the kept part starts with a human turn.
    cuts = [k for k, message in enumerate(rest) if isinstance(message, HumanMessage)]
    if not cuts:
        return []
    fitting = [k for k in cuts if start + len(rest) - k <= max_messages]
    cut = fitting[0] if fitting else cuts[-1]
    return [RemoveMessage(id=message.id) for message in rest[:cut]]
    ### END SOLUTION


def budgeted(max_messages: int) -> Callable:
    """A reducer: ``add_messages(old, new)``, then the removals of ``trim_removals`` applied.

    It upserts by id (a message with a stored id replaces it in place), removes
    by ``RemoveMessage``, and never holds more than the trim rules allow. A
    re-sent write (the same messages, the same ids) changes nothing. Merge by
    id cannot dedupe what it already removed: a re-sent message the trim took
    out is new again. Removing an id it does not hold raises ``ValueError``,
    as ``add_messages`` does. It never mutates its arguments: a message
    without an id gets one in the result only. ``old`` may be None. Raises
    ``ValueError`` at once for a bad budget.
    """
    ### BEGIN SOLUTION messages.upsert messages.budget
    _check_budget(max_messages)

    def reducer(old, new):
        # add_messages writes ids into id-less messages in place: give it copies, never the caller's objects.
        writes = new if isinstance(new, list) else [new]
        copies = [m.model_copy() if isinstance(m, BaseMessage) else m for m in writes]
        held = [m if not isinstance(m, BaseMessage) or m.id else m.model_copy() for m in (old or [])]
        merged = add_messages(held, copies)
        if len(merged) <= max_messages:  # nothing to trim (and budgeted works before trim_removals is written)
            return merged
        removals = trim_removals(merged, max_messages)
        return add_messages(merged, removals) if removals else merged

    reducer.__name__ = f"budgeted({max_messages})"  # how LangGraph's errors and the stepper name the merge rule
    return reducer
    ### END SOLUTION


class ChatState(TypedDict, total=False):
    """A chat agent's state: ``messages`` merged by id within a budget, ``summary`` overwritten.

    ``messages`` uses ``budgeted(MAX_MESSAGES)``; ``summary`` (the text of turns
    summarized away) has no merge rule.
    """

    ### BEGIN SOLUTION messages.budget
    messages: Annotated[list[AnyMessage], budgeted(MAX_MESSAGES)]
    summary: str
    ### STUB
    # pass
    ### END SOLUTION


def summarize_removals(messages: list[AnyMessage], keep_last: int) -> tuple[str, list[RemoveMessage]]:
    """A summary of the old messages, and the removals that take them out of the history.

    Keeps the system message and the last ``keep_last`` other messages; the
    cut moves earlier to the nearest human message, so no tool call is split
    from its results and the kept part starts with a human turn
    (``keep_last=0`` keeps the latest human turn). The summary names every
    removed message as ``role: text [id]`` (``calls NAME, …`` for an AI
    message with no text, only tool calls), in history order, joined by
    ``"; "``; ``_named`` below writes one message so. Nothing removed gives
    ``("", [])``. Raises ``ValueError`` unless ``keep_last`` is an int >= 0.
    """
    ### BEGIN SOLUTION messages.summary
    if type(keep_last) is not int or keep_last < 0:
        raise ValueError(f"keep_last is an int >= 0, not {keep_last!r}")
    start = 1 if messages and isinstance(messages[0], SystemMessage) else 0
    rest = list(messages[start:])
    cut = min(len(rest) - keep_last, len(rest) - 1) if rest else 0
    while cut > 0 and not isinstance(rest[cut], HumanMessage):
        cut -= 1
    removed = rest[:max(cut, 0)]
    if not removed:
        return "", []
    return "; ".join(_named(message) for message in removed), [RemoveMessage(id=m.id) for m in removed]
    ### END SOLUTION


def _named(message: BaseMessage) -> str:
    """``role: text [id]``, one removed message as the summary names it (``calls NAME, …`` for an AI message with no
    text, only tool calls)."""
    calls = getattr(message, "tool_calls", None)
    text = message.content if message.content or not calls else f"calls {', '.join(call['name'] for call in calls)}"
    return f"{message.type}: {text} [{message.id}]"


### BEGIN SOLUTION messages.decisions
DECISIONS: dict[str, str] = {
    "messages": "budgeted(MAX_MESSAGES), add_messages within a budget: merged by id so a retried turn is not stored "
                "twice and messages can be edited or removed, and trimmed in the state definition so no node can "
                "forget the budget or orphan a tool result.",
    "summary": "overwrite (no reducer): the text of the turns trimmed away; each summary replaces the last, because it "
               "already covers them.",
}
### STUB
# DECISIONS: dict[str, str] = {}
### END SOLUTION


def build_chat_graph(model, tools: dict, checkpointer=None, max_messages: int = MAX_MESSAGES):
    """A chat agent: ``agent`` calls ``model.invoke(messages)``; ``tools`` answers every tool call it asks for.

    The state has ``ChatState``'s keys, ``messages`` merged by
    ``budgeted(max_messages)``; the graph never writes ``summary``. Each tool
    call runs ``tools[name](**args)`` and gives a ``ToolMessage`` with content
    ``str(result)`` and the call's ``tool_call_id``; an unknown or raising tool
    gives one with ``status="error"`` naming the error. The loop ends when the
    AI message has no tool calls. A turn already answered (invoked again with
    the same message ids) changes nothing and does not call the model. A turn
    the budget has already trimmed away is answered again: merge by id cannot
    dedupe what it already removed.
    """
    ### BEGIN SOLUTION messages.graph
    class _State(TypedDict, total=False):
        messages: Annotated[list[AnyMessage], budgeted(max_messages)]
        summary: str

    def agent(state):
        return {"messages": [model.invoke(state["messages"])]}

    def run_tools(state):
        answers = []
        for call in state["messages"][-1].tool_calls:
            try:
                content, status = str(tools[call["name"]](**call["args"])), "success"
            except Exception as exc:  # an unknown tool (KeyError) or one that raised: the model reads what failed
                content, status = f"error: {type(exc).__name__}: {exc}", "error"
            answers.append(ToolMessage(content=content, tool_call_id=call["id"], status=status, id=f"tool-{call['id']}"))
        return {"messages": answers}

    def waiting(state) -> str:
        # A turn already answered ends at once: re-invoking it must not call the model again.
        last = state["messages"][-1] if state.get("messages") else None
        return END if isinstance(last, AIMessage) and not last.tool_calls else "agent"

    def after_agent(state) -> str:
        return "tools" if state["messages"][-1].tool_calls else END

    graph = StateGraph(_State)
    graph.add_node("agent", agent)
    graph.add_node("tools", run_tools)
    graph.add_conditional_edges(START, waiting, ["agent", END])
    graph.add_conditional_edges("agent", after_agent, ["tools", END])
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=checkpointer)
    ### END SOLUTION
