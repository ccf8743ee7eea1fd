"""Provided helper (not an exercise, never graded): read an event log as a table and as a timeline.

``event_table(events)`` is one row per event (what an auditor scans);
``plot_timeline(events)`` draws each task's events over time, a lane per
event type, with crashes marked, so a retry or a resume is visible at a glance.
"""

import html

__all__ = ["event_rows", "EventTable", "event_table", "plot_timeline"]

LANES = ["agent.started", "tool.called", "tool.result", "agent.crashed", "task.completed"]


def _summary(event) -> str:
    payload = event.payload
    if event.type == "tool.called":
        args = ", ".join(f"{k}={v!r}" for k, v in payload.get("args", {}).items())
        return f"{payload.get('call_id')}  {payload.get('tool')}({args})"
    if event.type == "tool.result":
        return f"{payload.get('call_id')}  -> {payload.get('result')!r}"
    return ", ".join(f"{k}={v!r}" for k, v in payload.items())


def event_rows(events) -> list[dict]:
    """One dict per event: task, seq, type, what it says, and milliseconds since the task's first event."""
    start = {}
    rows = []
    for event in events:
        start.setdefault(event.task_id, event.ts)
        rows.append({"task": event.task_id, "seq": event.seq, "type": event.type, "what": _summary(event),
                     "ms": round((event.ts - start[event.task_id]) * 1000, 1)})
    return rows


class EventTable:
    """Rows that print as text and render as an HTML table in Jupyter."""

    def __init__(self, rows: list[dict]):
        self.rows = rows

    def __repr__(self) -> str:
        lines = [f"{'task':<12} {'seq':>4} {'+ms':>8}  {'type':<15} what"]
        lines += [f"{r['task']:<12} {r['seq']:>4} {r['ms']:>8}  {r['type']:<15} {r['what']}" for r in self.rows]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{name}</th>" for name in ("task", "seq", "+ms", "type", "what"))
        body = "".join("<tr>" + "".join(f"<td>{html.escape(str(r[k]))}</td>" for k in ("task", "seq", "ms", "type", "what"))
                       + "</tr>" for r in self.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def event_table(events) -> EventTable:
    return EventTable(event_rows(events))


def plot_timeline(events, ax=None):
    """Each event as a dot at (ms since the task's start, its type's lane); crashes as red lines. The figure."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 2.8))
    rows = event_rows(events)
    for task in dict.fromkeys(r["task"] for r in rows):
        mine = [r for r in rows if r["task"] == task]
        ax.plot([r["ms"] for r in mine], [LANES.index(r["type"]) for r in mine], "o-", alpha=0.7, label=task)
        for r in mine:
            if r["type"] == "agent.crashed":
                ax.axvline(r["ms"], color="red", linestyle="--", alpha=0.5)
            ax.annotate(str(r["seq"]), (r["ms"], LANES.index(r["type"])), textcoords="offset points", xytext=(0, 6),
                        ha="center", fontsize=7)
    ax.set_yticks(range(len(LANES)), LANES)
    ax.set_xlabel("ms since the task's first event")
    ax.legend(loc="lower right", fontsize=8)
    ax.figure.tight_layout()
    return ax.figure
