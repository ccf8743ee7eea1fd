"""Part E's scenarios: ChatState, the budget graph and the chat graph, run in the grading process.

Messages are LangChain's here and cross to the learner's process as messages
(``grader.engine.remote``); the rules read them as plain dicts
(``grader.parts.messages.plain``). The chat graph ``build_chat_graph``
returns is rebuilt and run here on the grader's checkpointer, its model and
tools the grader's own, lent to the learner's code: the histories the model
was given and the checkpoint are recorded here, where the learner's code
cannot reach them.
"""

import copy

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from grader.engine.handles import SAVER, Callback, CallbackObject, Raised
from grader.engine.remote import Remote, scenario
from grader.parts.messages import scenarios_calls  # noqa: F401 - registers the single functions' scenarios
from grader.parts.messages.plain import message, plain, plains, stable

__all__ = ["chat_channels", "budget_graph", "chat_run"]

# A graph's parallel calls one at a time in a fixed order, each checkpoint saved before the next step: a run repeats.
_ONE_AT_A_TIME = {"max_concurrency": 1}


@scenario
def chat_channels(remote: Remote, histories, write):
    """ChatState's keys, each channel's kind, and its messages reducer applied to each of ``histories`` and ``write``."""
    built = remote.attempt(lambda: _graph_of(remote.schema("ChatState")))
    if isinstance(built, Raised):
        return built
    schema, builder = built
    keys = list(schema.__annotations__)
    kinds = {key: type(builder.channels.get(key)).__name__ for key in keys}
    operator = getattr(builder.channels.get("messages"), "operator", None)
    merged = None
    if operator is not None:
        merged = [remote.attempt(lambda: plains(operator([message(s) for s in history], [message(s) for s in write])))  # noqa: B023
                  for history in histories]
    return stable({"keys": sorted(keys), "channels": kinds, "merged": merged,
                   "max_messages": remote.attempt(lambda: remote.get("MAX_MESSAGES"))})


def _graph_of(schema):
    return schema, StateGraph(schema)


@scenario
def budget_graph(remote: Remote, steps):
    """A chain of nodes over ChatState, each writing its ``steps`` entry to messages: the messages after every step."""
    graph = StateGraph(remote.schema("ChatState", ["messages"]))
    names = [f"n{i}" for i in range(len(steps))]
    for name, write in zip(names, steps):
        graph.add_node(name, lambda state, write=write: {"messages": [message(spec) for spec in write]})
    for before, after in zip([START, *names], [*names, END]):
        graph.add_edge(before, after)
    run = remote.attempt(lambda: [plains(chunk.get("messages", [])) for chunk in graph.compile().stream(
        {}, {"recursion_limit": len(steps) + 5, **_ONE_AT_A_TIME}, stream_mode="values")])
    return run if isinstance(run, Raised) else stable({"states": run[1:] if len(run) > len(steps) else run})


def scripted_invoke(script: dict, received: list):
    """The grader's chat model's ``invoke``: answers the latest human text from ``script``, recording each history it is given."""

    def invoke(messages):
        history = [plain(m) for m in messages] if isinstance(messages, list) else [plain(messages)]
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

    return invoke


def lookup_order(order_id: str) -> str:
    """The order's status."""
    return f"order {order_id}: shipped"


def shipping_eta(order_id: str) -> str:
    """Days until delivery (the carrier is down: it raises)."""
    raise RuntimeError(f"carrier down for {order_id}")


@scenario
def chat_run(remote: Remote, script, turns, budget, checkpointed, resend):
    """Each turn one invoke, here: with the grader's checkpointer on one thread, or (not ``checkpointed``) passing the messages on.

    After every turn: the output's messages, the checkpoint's (read from the
    grader's saver), and how many histories the model got; then each turn in
    ``resend`` invoked again.
    """
    received, saver = [], InMemorySaver()
    model = CallbackObject("model", {"invoke": scripted_invoke(copy.deepcopy(script), received)})
    tools = {"lookup_order": Callback("lookup_order", lookup_order), "shipping_eta": Callback("shipping_eta", shipping_eta)}
    graph = remote.attempt(lambda: remote.graph(
        remote.call("build_chat_graph", model, tools, checkpointer=SAVER if checkpointed else None, max_messages=budget), saver))
    if isinstance(graph, Raised):
        return graph
    config = {"configurable": {"thread_id": "chat"}, "recursion_limit": 40, **_ONE_AT_A_TIME}
    done, carried = [], []
    for index in [*range(len(turns)), *resend]:
        human = HumanMessage(content=turns[index]["text"], id=turns[index]["id"])
        sent = {"messages": [human]} if checkpointed else {"messages": [*carried, human]}
        calls_before = len(received)
        # With the grader's checkpointer, each checkpoint saved before the next step runs (LangGraph 1.2 refuses it without one).
        output = remote.attempt(lambda: graph.invoke(sent, config, durability="sync") if checkpointed  # noqa: B023
                                else graph.invoke(sent, {"recursion_limit": 40, **_ONE_AT_A_TIME}))  # noqa: B023
        if isinstance(output, Raised):
            return stable({"turns": done, "received": received, "raised": output, "at": index})
        messages = output.get("messages", []) if isinstance(output, dict) else output
        carried = list(messages) if isinstance(messages, list) else []
        saved = saver.get_tuple(config) if checkpointed else None
        stored = dict(saved.checkpoint["channel_values"]) if saved is not None else {}
        done.append({"turn": index, "output": plains(messages), "keys": sorted(output) if isinstance(output, dict) else [],
                     "stored": plains(stored.get("messages", [])), "stored_keys": sorted(map(str, stored)),
                     "model_calls": len(received) - calls_before})
    return stable({"turns": done, "received": received, "raised": None, "at": None})
