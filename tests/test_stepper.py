"""The classroom stepper shows what LangGraph really did, checked against LangGraph's own streams."""

import operator
import sys
from typing import Annotated

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Overwrite, Send, interrupt
from support.paths import SOLUTIONS
from typing_extensions import TypedDict

sys.path.insert(0, str(SOLUTIONS))
from agstate.state import WINDOW, keep_recent
from agstate.stepper import Stepper, record_run, render_step, render_text

pytestmark = pytest.mark.unit


class Naive(TypedDict, total=False):
    trace: list[str]


class Appended(TypedDict, total=False):
    trace: Annotated[list[str], operator.add]


class Windowed(TypedDict, total=False):
    recent: Annotated[list[str], keep_recent]


def chain(schema, key: str, names: list[str]):
    graph = StateGraph(schema)
    for name in names:
        graph.add_node(name, lambda state, name=name: {key: [name]})
    for left, right in zip([START, *names], [*names, END]):
        graph.add_edge(left, right)
    return graph.compile()


def fan_out(schema, names: list[str]):
    graph = StateGraph(schema)
    graph.add_node("start", lambda state: {"trace": ["start"]})
    graph.add_edge(START, "start")
    for name in names:
        graph.add_node(name, lambda state, name=name: {"trace": [name]})
        graph.add_edge("start", name)
        graph.add_edge(name, END)
    return graph.compile()


def streamed(graph, inputs):
    """LangGraph's own account of a run: task names per step, updates, and values after each step."""
    tasks, updates, values = {}, [], []
    for mode, chunk in graph.stream(inputs, stream_mode=["debug", "updates", "values"]):
        if mode == "debug" and chunk["type"] == "task":
            tasks.setdefault(chunk["step"], []).append(chunk["payload"]["name"])
        elif mode == "updates":
            updates.append(chunk)
        elif mode == "values":
            values.append(chunk)
    return tasks, updates, values


def test_a_sequential_run_matches_langgraphs_streams():
    graph = chain(Naive, "trace", ["intake", "lookup", "finish"])
    steps = record_run(graph, {"trace": []})
    tasks, updates, values = streamed(graph, {"trace": []})
    assert [step.nodes for step in steps[1:]] == [tasks[number] for number in sorted(tasks)]
    assert [{name: update} for step in steps[1:] for name, update in step.updates] == updates
    assert [step.keys[0].after for step in steps] == [value["trace"] for value in values]
    assert {change.rule for step in steps for change in step.keys} == {"overwrite (no reducer)"}
    assert steps[-1].keys[0].after == ["finish"]  # the overwrite bug, as the class sees it
    assert "step 3: finish" in render_text(steps)


def test_parallel_writes_are_listed_in_the_order_langgraph_folds_them():
    names = ["node2", "alpha", "Zeta", "node10"]
    graph = fan_out(Appended, names)
    steps = record_run(graph, {"trace": []})
    tasks, _, values = streamed(graph, {"trace": []})
    parallel = steps[-1]
    assert sorted(parallel.nodes) == sorted(tasks[max(tasks)])
    assert parallel.nodes == ["Zeta", "alpha", "node10", "node2"]  # by name as strings, not finish order
    [change] = parallel.keys
    assert change.rule == "reducer add"
    # LangGraph's own result is the fold of the writes in the order shown.
    assert change.after == change.before + [item for _, write in change.writes for item in write]
    assert change.after == values[-1]["trace"]


def test_send_tasks_are_folded_by_index_not_by_name():
    graph = StateGraph(Appended)
    graph.add_node("fan", lambda state: {})
    graph.add_node("work", lambda state: {"trace": [state["item"]]})
    graph.add_edge(START, "fan")
    items = [f"item{n}" for n in range(12)]
    graph.add_conditional_edges("fan", lambda state: [Send("work", {"item": item}) for item in items])
    steps = record_run(graph.compile(), {"trace": []})
    [change] = steps[-1].keys
    assert [name for name, _ in change.writes] == [f"work[{n}]" for n in range(12)]
    assert change.after == items == [item for _, write in change.writes for item in write]


def test_the_parallel_invalid_update_error_is_the_last_step():
    steps = record_run(fan_out(Naive, ["left", "right"]), {"trace": []})
    last = steps[-1]
    assert last.nodes == ["left", "right"] and last.error.startswith("InvalidUpdateError: At key 'trace'")
    assert [name for name, _ in last.keys[0].writes] == ["left", "right"]
    assert "(not stored)" in render_step(last) and "✗ InvalidUpdateError" in render_step(last)


def test_overwrite_is_named_as_the_rule_and_wins():
    graph = StateGraph(Appended)
    graph.add_node("reset", lambda state: {"trace": Overwrite(["fresh"])})
    graph.add_edge(START, "reset")
    steps = record_run(graph.compile(), {"trace": ["old"]})
    [change] = steps[-1].keys
    assert change.rule.startswith("Overwrite") and change.before == ["old"] and change.after == ["fresh"]
    assert "Overwrite(['fresh'])" in render_step(steps[-1])


def test_a_window_trims_and_says_which_reducer():
    graph = chain(Windowed, "recent", [f"n{i}" for i in range(WINDOW + 2)])
    steps = record_run(graph, {"recent": []})
    assert {change.rule for step in steps for change in step.keys} == {"reducer keep_recent"}
    last = steps[-1].keys[0]
    assert len(last.before) == WINDOW and last.after == last.before[1:] + [f"n{WINDOW + 1}"]


def asking(sent: list):
    """Part F's pitfall in small: a node that sends, then asks twice; each answer appended to trace."""

    def ask(state):
        sent.append("request")
        first = interrupt("first?")
        second = interrupt("second?")
        return {"trace": [f"{first}/{second}"]}

    graph = StateGraph(Appended)
    graph.add_node("ask", ask)
    graph.add_node("done", lambda state: {"trace": ["done"]})
    graph.add_edge(START, "ask")
    graph.add_edge("ask", "done")
    return graph.compile()


def test_a_pause_is_the_run_waiting_not_an_error_and_answers_resume_it_as_langgraph_does():
    waiting = record_run(asking([]), {"trace": []})
    assert waiting[-1].nodes == ["ask"] and waiting[-1].paused == ["first?"] and waiting[-1].error is None
    page = render_step(waiting[-1])
    assert "⏸ paused on interrupt('first?')" in page and "waiting for an answer" in page and "✗" not in page
    sent = []
    answered = record_run(asking(sent), {"trace": []}, answers=["A", "B", "unused"])
    # LangGraph's own run, answered the same way: the same steps and the same final state.
    direct, config = asking([]).copy(update={"checkpointer": InMemorySaver()}), {"configurable": {"thread_id": "t"}}
    direct.invoke({"trace": []}, config)
    direct.invoke(Command(resume="A"), config)
    final = direct.invoke(Command(resume="B"), config)
    assert [step.nodes for step in answered] == [["input"], ["ask"], ["done"]]
    assert answered[-1].keys[0].after == final["trace"] == ["A/B", "done"]
    assert answered[1].answers == ["A", "B"] and sent == ["request"] * 3  # the node ran again on each answer
    assert "resumed with Command(resume='A'), Command(resume='B')" in render_step(answered[1])
    assert answered[-1].error is None and not answered[-1].paused


def test_the_widget_steps_with_buttons_and_slider():
    stepper = Stepper(record_run(chain(Naive, "trace", ["a", "b"]), {"trace": []}))
    assert stepper.previous.disabled and stepper.text().startswith("step 0: the input")
    stepper.next.click()
    stepper.next.click()
    assert stepper.slider.value == 2 and stepper.next.disabled and stepper.text().startswith("step 2: b")
    assert "step 2: b" in stepper.page.value
    stepper.next.click()  # past the end: stays
    stepper.previous.click()
    assert stepper.slider.value == 1 and stepper.text() == render_step(stepper.steps[1])
