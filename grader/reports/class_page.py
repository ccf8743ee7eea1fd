"""``agstate-grade report LOG -o report.html``: the class report, one self-contained HTML page for the instructor.

The page is made from the batch's log alone (``--out FILE`` writes
``FILE.jsonl``), needs no server and loads nothing: its plots are PNGs drawn
by matplotlib and embedded in the page, its style is inline. Every text that
came from a submission (folder names, the learner's values in feedback) is
HTML-escaped.
"""

import argparse
import base64
import html
import io
import sys
from datetime import UTC, datetime
from pathlib import Path

from grader.catalog import TASKS, part_title
from grader.reports import gradebook
from grader.reports.class_summary import ClassSummary, summarize
from grader.reports.report import Report
from grader.reports.safe import atomic_write

__all__ = ["main", "render", "scores_plot"]

_SHAPES_SHOWN = 5  # the most shared shapes of each of the worst rules
_WORST_RULES = 12  # rules shown with their shapes; every failing rule is in the table


def scores_plot(summary: ClassSummary) -> bytes:
    """A PNG: the distribution of scores per part (percent of the part's points), the median marked."""
    import matplotlib

    matplotlib.use("Agg")  # no display, whatever the instructor's environment says
    from matplotlib import pyplot

    panels = [(part_title(part), summary.scores.get(part, []), summary.medians.get(part)) for part in summary.parts]
    if len(summary.parts) > 1:
        panels.append(("Every part graded", summary.total_scores, summary.medians.get("total")))
    figure, axes = pyplot.subplots(1, len(panels), figsize=(3.2 * len(panels), 2.8), sharey=True, squeeze=False)
    for axis, (title, values, median) in zip(axes[0], panels):
        axis.hist(values, bins=[0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100.0001], color="#4c72b0", edgecolor="white")
        if median is not None:
            axis.axvline(median, color="#c44e52", linewidth=2, label=f"median {median:.0f}%")
            axis.legend(loc="upper left", fontsize=8, frameon=False)
        axis.set_title(title, fontsize=9)
        axis.set_xlabel("score (% of the points)", fontsize=8)
        axis.set_xlim(0, 100)
    axes[0][0].set_ylabel("students")
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, metadata={"Software": None})  # no version stamp: the page repeats
    pyplot.close(figure)
    return buffer.getvalue()


_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222;line-height:1.4}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:.25em .7em;border-bottom:1px solid #eee;text-align:left;
vertical-align:top}th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.share{white-space:nowrap}.warn{color:#a33}
.bar{display:inline-block;height:.8em;background:#c44e52;vertical-align:middle}.muted{color:#777}
.example{font-family:ui-monospace,monospace;font-size:.85em;background:#f7f7f7;padding:.3em .5em;display:block;
white-space:pre-wrap;word-break:break-word}img{max-width:100%}
"""


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _percent(failing: int, started: int) -> str:
    share = failing / started if started else 0.0
    return (f'<td class="n">{failing} of {started}</td><td class="share"><span class="bar" style="width:{share * 8:.2f}em">'
            f"</span> {share:.0%}</td>")


def render(summary: ClassSummary, log_name: str, made: str) -> str:
    """The page for ``summary`` (of the log ``log_name``), stamped ``made``."""
    plot = base64.b64encode(scores_plot(summary)).decode()
    seeds = (f"seed {summary.seeds[0]}" if len(summary.seeds) == 1 else
             f"one seed per student (--seed-per-student) from batch seed {', '.join(map(str, summary.batch_seeds))}")
    medians = " · ".join(f"{_e(part_title(part))}: {summary.medians[part]:.0f}%" for part in summary.parts
                         if part in summary.medians)
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>agstate lab: class report</title>", f"<style>{_STYLE}</style></head><body>",
           "<h1>agstate lab: what the class got wrong</h1>",
           f'<p class="muted">{summary.students} submissions from <code>{_e(log_name)}</code>; {_e(seeds)}; graded by '
           f"{_e(', '.join(summary.graded_by) or 'an unrecorded grader version')}"
           + (f", {_e(summary.graded_at[0])} to {_e(summary.graded_at[1])}" if summary.graded_at[0] else "")
           + f"; report made {_e(made)}.</p>"]
    if len(summary.graded_by) > 1:
        out.append(f'<p class="warn">This log was graded by {len(summary.graded_by)} versions of the grader: scores '
                   "of different versions may not compare; regrade the class with one.</p>")
    if summary.regraded:
        out.append('<p class="muted">Regraded: ' + ", ".join(f"{_e(student)} ({_e(when)})"
                                                              for student, when in summary.regraded) + ".</p>")
    out += ["<h2>Scores</h2>",
            f"<p>Class median: <b>{summary.medians.get('total', 0):.0f}%</b> of the points graded. By part, among the "
            f"students whose part was graded: {medians}.</p>",
            f'<img alt="score distribution per part" src="data:image/png;base64,{plot}">']
    out += _tasks_table(summary) + _worst_rules(summary) + _rules_table(summary) + _missing(summary)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _tasks_table(summary: ClassSummary) -> list[str]:
    rows = [f"<tr><td>{_e(task_id)}</td><td>{_e(TASKS[task_id].notebook if task_id in TASKS else '')}</td>"
            f'{_percent(failing, started)}<td class="n">{unwritten or ""}</td></tr>'
            for task_id, failing, unwritten, started in summary.tasks]
    return ["<h2>Tasks, worst first</h2>", "<table><tr><th>task</th><th>notebook</th><th>students failing</th>"
            "<th></th><th>not written yet</th></tr>", *rows, "</table>"]


def _rules_table(summary: ClassSummary) -> list[str]:
    if not summary.rules:
        return ["<h2>Rules, worst first</h2>", "<p>No rule failed.</p>"]
    rows = [f"<tr><td>{_e(rule.task)}</td><td>{_e(rule.rule)}</td>{_percent(rule.failing, rule.started)}</tr>"
            for rule in summary.rules]
    return ["<h2>Rules, worst first</h2>", "<table><tr><th>task</th><th>rule</th><th>students failing</th><th></th></tr>",
            *rows, "</table>"]


def _worst_rules(summary: ClassSummary) -> list[str]:
    """Per task, worst first: what went wrong, each student counted once per kind of mistake (one bug breaking
    several rules of a task is one row, not a section per rule)."""
    out = ["<h2>The most common mistakes</h2>"] if summary.mistakes else []
    for task in summary.mistakes[:_WORST_RULES]:
        out.append(f"<h3>{_e(task.task)} <span class=\"muted\">({task.failing} of {task.started} students failing)"
                   "</span></h3><table><tr><th>students</th><th>what went wrong</th><th>one example</th></tr>")
        for shape in task.shapes[:_SHAPES_SHOWN]:
            out.append(f'<tr><td class="n">{shape.students}</td><td>{_e(shape.text)}</td>'
                       f'<td><span class="example">{_e(shape.example)}</span></td></tr>')
        if len(task.shapes) > _SHAPES_SHOWN:
            others = sum(shape.students for shape in task.shapes[_SHAPES_SHOWN:])
            out.append(f'<tr><td class="n">{others}</td><td class="muted">{len(task.shapes) - _SHAPES_SHOWN} other '
                       "kinds</td><td></td></tr>")
        out.append("</table>")
    return out


def _missing(summary: ClassSummary) -> list[str]:
    out = ["<h2>Not started, not loading, crashed, timed out, not graded</h2>"]
    for part in summary.parts:
        students = summary.not_started.get(part, [])
        if students:
            out.append(f"<p>Not started {_e(part_title(part))} ({len(students)}): {_e(', '.join(students))}.</p>")
        broken = summary.not_loaded.get(part, [])
        if broken:
            out.append(f"<p>{_e(part_title(part))} did not load or was refused ({len(broken)}):</p><ul>"
                       + "".join(f"<li>{_e(student)}: {_e(why[:200])}</li>" for student, why in broken) + "</ul>")
    if summary.down:
        out.append("<table><tr><th>student</th><th>task</th><th>status</th><th>feedback</th></tr>")
        out += [f"<tr><td>{_e(student)}</td><td>{_e(task_id)}</td><td>{_e(status)}</td><td>{_e(feedback[:300])}</td></tr>"
                for student, task_id, status, feedback in summary.down]
        out.append("</table>")
    if len(out) == 1:
        out.append("<p>Every student started every part and every module loaded; no task crashed or timed out, and the "
                   "grader graded every task.</p>")
    return out


class ReportError(Exception):
    pass


def load(log: str) -> list[Report]:
    """The reports of a batch log (``FILE.jsonl``, or the ``FILE.csv`` it belongs to), the last record of each."""
    path = Path(log)
    if path.suffix == ".csv":
        path = gradebook.log_path(log)
    if not path.is_file():
        raise ReportError(f"no batch log at {path}: give the .jsonl file that agstate-grade --out FILE wrote next to FILE")
    reports = [report for report in gradebook.read_log(str(path)).values() if _whole(report)]
    if not reports:
        raise ReportError(f"{path} holds no report: is it the log of an agstate-grade --out batch?")
    return reports


def _whole(report: Report) -> bool:
    """A record the report can read (a log edited by hand, or cut off, may hold others: they are left out)."""
    tasks = report.get("tasks")
    return isinstance(report.get("score"), (int, float)) and isinstance(report.get("seed"), int) and \
        isinstance(tasks, list) and all(isinstance(t, dict) and {"id", "part", "status", "score", "max_score"} <= set(t)
                                        for t in tasks)


def parser() -> argparse.ArgumentParser:
    """agstate-grade report's command line."""
    built = argparse.ArgumentParser(prog="agstate-grade report",
                                     description="A class report (one HTML page) from a batch's log: score "
                                                 "distributions, the rules most students fail, the shapes of their "
                                                 "counterexamples, who has not started or crashed.")
    built.add_argument("log", metavar="LOG", help="the batch's log: FILE.jsonl of agstate-grade --out FILE")
    built.add_argument("-o", "--output", metavar="HTML", help="where to write the page (default: LOG with .html)")
    return built


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        reports = load(args.log)
    except ReportError as exc:
        print(f"agstate-grade report: {exc}", file=sys.stderr)
        return 2
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    page = render(summarize(reports), Path(args.log).name, made)
    target = Path(args.output) if args.output else Path(args.log).with_suffix(".html")
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(target) as out:  # a link planted at the target is replaced, never written through
        out.write(page)
    print(f"class report of {len(reports)} submissions: {target}")
    return 0
