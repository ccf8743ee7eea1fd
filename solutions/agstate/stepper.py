"""Provided helper (not an exercise, never graded): step through a graph run, one superstep at a time.

For a classroom projector: what each node returned, what each key held
before and after, and which merge rule combined the writes.

    from agstate.stepper import step_through
    step_through(graph, {"trace": []})       # a widget: previous / next buttons and a slider
    print(render_text(record_run(graph, {"trace": []})))   # the same, as plain text
    step_through(graph, {"request": r}, answers=[True])   # a run that pauses: each pause answered in turn

Everything shown comes from LangGraph itself: the run is replayed from its
checkpoint history (``get_state_history``), which holds, for every superstep,
the state before it and each task's writes. Parallel writes are listed in the
order LangGraph folds them into a key (by task path: plain nodes by name as
strings, ``Send`` tasks by their index), not the order they finished in.
"""

import uuid
from dataclasses import dataclass, field
from typing import Any

from langgraph.channels.binop import BinaryOperatorAggregate
from langgraph.channels.last_value import LastValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.pregel._algo import task_path_str  # the sort key LangGraph's apply_writes uses
from langgraph.types import Command, Overwrite

__all__ = ["KeyChange", "RunStep", "record_run", "render_text", "step_through", "Stepper"]


@dataclass
class KeyChange:
    """One key in one superstep: the writes it received, in merge order, and the rule that combined them."""

    key: str
    rule: str
    before: Any
    writes: list[tuple[str, Any]]
    after: Any


@dataclass
class RunStep:
    number: int  # 0 is the input, then one per superstep
    nodes: list[str]  # in merge order
    updates: list[tuple[str, Any]]  # (node, what it returned)
    keys: list[KeyChange] = field(default_factory=list)
    error: str | None = None  # the run stopped here
    paused: list = field(default_factory=list)  # the values of the interrupt() calls that paused this step
    answers: list = field(default_factory=list)  # the answers it was resumed with: none while the run waits here

    @property
    def title(self) -> str:
        if self.number == 0:
            return "step 0: the input"
        together = " (in parallel)" if len(self.nodes) > 1 else ""
        return f"step {self.number}: {', '.join(self.nodes)}{together}"


def record_run(graph, inputs, config: dict | None = None, answers=()) -> list[RunStep]:
    """Run ``graph`` on ``inputs`` with a fresh in-memory checkpointer and return its supersteps.

    A run that pauses (``interrupt()``) is resumed with ``Command(resume=answer)`` for each of ``answers`` in
    turn; once they are used up, the run waits at its last step, shown as paused, not as an error.
    """
    recorded = graph.copy(update={"checkpointer": InMemorySaver()})
    config = {**(config or {}), "configurable": {"thread_id": f"stepper-{uuid.uuid4()}"}}
    error, resumed = None, {}  # checkpoint id -> the answers given while the run was paused there
    try:
        output = recorded.invoke(inputs, config)
        for answer in answers:
            if not isinstance(output, dict) or not output.get("__interrupt__"):
                break
            waiting = recorded.get_state(config).config["configurable"]["checkpoint_id"]
            resumed.setdefault(waiting, []).append(answer)
            output = recorded.invoke(Command(resume=answer), config)
    except Exception as exc:  # the pitfall being shown, e.g. InvalidUpdateError: it becomes the last step
        error = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    history = list(reversed(list(recorded.get_state_history(config))))
    steps = []
    for position, snapshot in enumerate(history):
        if not snapshot.tasks:
            continue
        following = history[position + 1] if position + 1 < len(history) else None
        tasks = sorted(snapshot.tasks, key=lambda task: task_path_str(task.path[:3]))
        updates = [(_label(task), task.result) for task in tasks]
        step = RunStep(len(steps), [name for name, _ in updates], updates,
                       paused=[pause.value for task in tasks for pause in task.interrupts],
                       answers=resumed.get(snapshot.config["configurable"]["checkpoint_id"], []))
        after = following.values if following is not None else None
        written = [key for key in recorded.channels if any(key in (result or {}) for _, result in updates)]
        for key in written:
            writes = [(name, result[key]) for name, result in updates if key in (result or {})]
            step.keys.append(KeyChange(key, _rule(recorded.channels[key], writes), snapshot.values.get(key),
                                       writes, None if after is None else after.get(key)))
        if following is None and not (step.paused and error is None):  # a pause is the run waiting, not failing
            step.error = error or "the run stopped here"
        steps.append(step)
    return steps


def _label(task) -> str:
    """``input`` for the run's input, ``node`` for a plain node, ``node[i]`` for the i-th ``Send``."""
    if task.name == "__start__":
        return "input"
    return f"{task.name}[{task.path[1]}]" if task.path[0] == "__pregel_push" else task.name


def _rule(channel, writes) -> str:
    if any(isinstance(value, Overwrite) for _, value in writes):
        return "Overwrite (bypasses the reducer)"
    if isinstance(channel, BinaryOperatorAggregate):
        return f"reducer {getattr(channel.operator, '__name__', repr(channel.operator))}"
    if isinstance(channel, LastValue):
        return "overwrite (no reducer)"
    return type(channel).__name__


def _show(value) -> str:
    if isinstance(value, Overwrite):
        text = f"Overwrite({value.value!r})"
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{key!r}: {_show(item)}" for key, item in value.items()) + "}"
    else:
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def render_step(step: RunStep) -> str:
    lines = [step.title]
    for value in step.paused:
        lines.append(f"  ⏸ paused on interrupt({_show(value)})")
    if step.paused:
        given = ", ".join(f"Command(resume={_show(answer)})" for answer in step.answers)
        lines.append(f"    resumed with {given}: the node ran again from its first line" if given else
                     "    waiting for an answer: invoke(Command(resume=...), config)")
    for name, update in step.updates:
        waiting = update is None and step.paused and not step.answers
        lines.append(f"  {name} has not returned: it is paused" if waiting else f"  {name} returned {_show(update)}")
    for change in step.keys:
        lines.append(f"  key {change.key!r} — {change.rule}")
        lines.append(f"    before: {_show(change.before)}")
        for name, value in change.writes:
            lines.append(f"    + {name}: {_show(value)}")
        lines.append(f"    after:  {'(not stored)' if step.error else _show(change.after)}")
    if step.error:
        lines.append(f"  ✗ {step.error}")
    return "\n".join(lines)


def render_text(steps: list[RunStep]) -> str:
    return "\n\n".join(render_step(step) for step in steps)


class Stepper:
    """A widget over a recorded run: previous / next buttons, a slider, and the current step."""

    def __init__(self, steps: list[RunStep]):
        import ipywidgets as widgets

        self.steps = steps
        self.previous = widgets.Button(description="◀ previous")
        self.next = widgets.Button(description="next ▶")
        self.slider = widgets.IntSlider(min=0, max=max(len(steps) - 1, 0), description="step")
        self.page = widgets.HTML()
        self.previous.on_click(lambda _: self._go(self.slider.value - 1))
        self.next.on_click(lambda _: self._go(self.slider.value + 1))
        self.slider.observe(lambda _: self._draw(), names="value")
        self.widget = widgets.VBox([widgets.HBox([self.previous, self.next, self.slider]), self.page])
        self.widget.add_class("agstate-stepper")  # a handle for the browser test
        self._draw()

    def _go(self, number: int) -> None:
        self.slider.value = min(max(number, 0), len(self.steps) - 1)

    def _draw(self) -> None:
        import html

        step = self.steps[self.slider.value] if self.steps else None
        text = render_step(step) if step else "(no steps)"
        self.page.value = f"<pre class='agstate-stepper-page' style='font-size:1.15em; line-height:1.4'>{html.escape(text)}</pre>"
        self.previous.disabled = self.slider.value == 0
        self.next.disabled = self.slider.value >= len(self.steps) - 1

    def text(self) -> str:
        return render_step(self.steps[self.slider.value])

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def step_through(graph, inputs, config: dict | None = None, answers=()) -> Stepper:
    """Record a run of ``graph`` (each pause answered from ``answers``) and return a stepper over it (shown when it is
    a cell's last value)."""
    return Stepper(record_run(graph, inputs, config, answers))
