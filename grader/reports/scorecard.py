"""Every rendering of one report for the learner: the terminal's scorecard, the notebook's, and the student's page.

Both read the report and the catalog only (``grader.catalog``: names, points,
notebooks), so a notebook kernel shows a scorecard without importing the
grading engine. A report of several parts gives each part its subtotal; a
part not started folds into that one line. A failing task shows its first
failing rule in full and the others below it; and where to go next.
``student_page_html`` is the page a graded student reads (nbgrader's
feedback ``index.html``).
"""

import html

from grader.catalog import MODULES, PARTS, TASKS, part_title, whole_parts
from grader.reports.report import points
from grader.reports.safe import ALSO, for_terminal, other_causes

__all__ = ["render_text", "scorecard_html", "student_page_html", "next_step", "untouched", "NO_SANDBOX_WARNING",
           "GRADER_FAILED_WARNING"]

NO_SANDBOX_WARNING = "graded WITHOUT a sandbox: the learner's code ran as you, with access to everything you can read"
GRADER_FAILED_WARNING = "the grader itself failed on some task: its score says nothing about your code (see the task)"
_STATUS_MARK = {"passed": "✅", "failed": "❌", "not_implemented": "⬜", "error": "💥", "timeout": "⏱", "crashed": "💀",
                "grader_error": "🛠"}
_ONE_LINE = 160  # characters of a further failing rule in the terminal's scorecard, without --verbose


def status_word(status: str) -> str:
    """A status as a learner reads it: "not started", "failing", "grader failed"…"""
    return {"not_implemented": "not started", "failed": "failing", "grader_error": "grader failed"}.get(
        status, status.replace("_", " "))


def untouched(tasks: list[dict]) -> bool:
    """Whether none of ``tasks`` is started: every one is still its stub."""
    return bool(tasks) and all(task["status"] == "not_implemented" for task in tasks)


def _parts(tasks: list[dict]) -> list[tuple[str, list[dict]]]:
    """The report's tasks grouped by part, in the report's order."""
    groups: list[tuple[str, list[dict]]] = []
    for task in tasks:
        part = task.get("part") or task["id"].split(".", 1)[0]
        if not groups or groups[-1][0] != part:
            groups.append((part, []))
        groups[-1][1].append(task)
    return groups


def _first_lesson(part: str) -> str:
    """The notebook a part's first lesson is in (``07_replacement_bug.ipynb``)."""
    return next((p.first_notebook for p in PARTS if p.name == part), "00_welcome.ipynb")


def next_step(tasks: list[dict]) -> list[str]:
    """Where to go next, as one line (none when everything passed).

    The part in progress first (started, not finished): its first task not
    passing. With none in progress, the part after the last one finished.
    """
    groups = [(part, mine) for part, mine in _parts(tasks) if part in MODULES]
    waiting = [task for task in tasks if task["status"] != "passed" and task["id"] in TASKS]
    if not groups or not waiting:
        return []
    first = f"next: {waiting[0]['id']}, in notebook {TASKS[waiting[0]['id']].notebook}"
    if all(untouched(mine) for _, mine in groups):
        if whole_parts([task["id"] for task in tasks]) is None:  # some tasks only: about them, not the part
            return [first]
        where = "00_welcome.ipynb" if len(groups) > 1 else _first_lesson(groups[0][0])
        return [f"nothing is written yet: start with notebook {where}"]
    for _, mine in groups:
        begun = [task for task in mine if task["status"] != "passed" and task["id"] in TASKS]
        if begun and not untouched(mine):
            return [f"next: {begun[0]['id']}, in notebook {TASKS[begun[0]['id']].notebook}"]
    done = [index for index, (_, mine) in enumerate(groups) if all(t["status"] == "passed" for t in mine)]
    if not done:
        return [first]
    later = groups[done[-1] + 1:] + groups[:done[-1]]
    following = next((part for part, mine in later if untouched(mine)), None)
    if following is None:
        return []
    finished = ", ".join(part_title(groups[index][0]).split(".")[0] for index in done)
    return [f"part {finished} done; next: part {part_title(following)}, notebook {_first_lesson(following)}"]


def render_text(report: dict, verbose: bool = False, footer: str | None = None) -> str:
    """A scorecard for a terminal, ending with the command that repeats the run (``footer`` instead, when given: a
    course's grading service chooses the seed, and a student has no agstate-grade to repeat it with).

    A failing task shows its first failing rule in full and every other one
    on a line of its own (in full with ``verbose``: ``--verbose``).
    """
    lines = [f"agstate-grade {report['submission']} (seed {report['seed']})"]
    if report.get("sandbox") == "none":
        lines.append(f"  WARNING: {NO_SANDBOX_WARNING}")
        if report.get("unsandboxed"):
            lines.append(f"  (no sandbox: {report['unsandboxed']})")
    if any(task["status"] == "grader_error" for task in report["tasks"]):
        lines.append(f"  WARNING: {GRADER_FAILED_WARNING}")
    width = max((len(t["id"]) for t in report["tasks"]), default=10)
    shortened = False
    groups = _parts(report["tasks"])
    for part, mine in groups:
        if len(groups) > 1:
            score, top = points(mine)
            folded = f", not started: begin with notebook {_first_lesson(part)}" if untouched(mine) and len(mine) > 1 else ""
            lines.append(f"part {part_title(part)}: {score:.1f}/{top:.1f}{folded}")
            if folded:
                continue
        for task in mine:
            took = f" {task['seconds']:6.2f} s" if "seconds" in task else ""
            lines.append(f"  {task['id']:<{width}}  {task['score']:5.1f}/{task['max_score']:<5.1f}{took} {task['status']}")
            if task["status"] == "passed":
                continue
            lines.append(f"  {'':<{width}}  {task['feedback'].split(ALSO)[0]}")
            for number, rule in other_causes(task.get("rules", [])):  # the same failure's rules are said in the feedback
                text = f"({number}) {rule['rule']}: {rule['feedback']}"
                if not verbose and len(text) > _ONE_LINE:
                    text, shortened = text[:_ONE_LINE - 3] + "...", True
                lines.append(f"  {'':<{width}}  {text}")
    ids = [task["id"] for task in report["tasks"]]
    parts = whole_parts(ids)
    if ids == list(TASKS):
        only = ""
    elif parts:
        only = f" --part {' '.join(parts)}"
    else:
        only = f" --task {' '.join(ids)}"
    lines += next_step(report["tasks"])
    unsandboxed = " --no-sandbox" if report.get("sandbox") == "none" else ""
    repeat = f"repeat: agstate-grade {report['submission']}{only} --seed {report['seed']}{unsandboxed}"
    lines.append(f"score {report['score']:.1f}/{report['max_score']:.1f}  ({footer or repeat})")
    if shortened:
        lines.append("every failing rule in full: add --verbose (or --json for the counterexamples)")
    return for_terminal("\n".join(lines))


def _others_html(task: dict) -> str:
    """A failing task's further failing rules, each in full, folded under a line saying how many."""
    broken = other_causes(task.get("rules", []))  # the same failure's rules are said in the feedback
    if not broken:
        return ""
    items = "".join(f"<li value='{number}'><b>{html.escape(rule['rule'])}</b>: {html.escape(rule['feedback'])}</li>"
                    for number, rule in broken)
    return (f"<details><summary>{len(broken)} more rule{'s' if len(broken) > 1 else ''} not passing</summary>"
            f"<ol>{items}</ol></details>")


def _task_row(task: dict) -> str:
    known = TASKS.get(task["id"])
    feedback = "" if task["status"] == "passed" else html.escape(task["feedback"].split(ALSO)[0]) + _others_html(task)
    notebook = html.escape(known.notebook) if known is not None else ""
    return (f"<tr><td>{_STATUS_MARK.get(task['status'], '')}</td><td><code>{html.escape(task['id'])}</code></td>"
            f"<td>{notebook}</td><td>{task['score']:g} / {task['max_score']:g}</td><td>{status_word(task['status'])}</td>"
            f"<td style='text-align:left'>{feedback}</td></tr>")


def scorecard_html(report: dict, repeat: str | None = None, footer: str | None = None) -> str:
    """The scorecard as an HTML table: a row per task, its notebook, points, status and feedback; then where to go next,
    and the seed with the call that repeats the run (``footer`` instead, when given: a graded notebook's page shows no
    grading seed, and a grading service chooses the seed itself).

    A report of several parts (``check()`` with no target, the progress view)
    gets a row per part, with its points, above the part's tasks; a part not
    started is that row alone.
    """
    repeat = repeat or f"check(..., seed={report['seed']})"
    ending = html.escape(footer) if footer else f"seed {report['seed']} (repeat with <code>{html.escape(repeat)}</code>)"
    rows = []
    groups = _parts(report["tasks"])
    for part, mine in groups:
        if len(groups) > 1:
            score, top = points(mine)
            folded = untouched(mine) and len(mine) > 1
            note = (f"<td>not started</td><td style='text-align:left'>{len(mine)} tasks; begin with notebook "
                    f"{html.escape(_first_lesson(part))}</td>") if folded else "<th colspan='2'></th>"
            rows.append(f"<tr><th colspan='3' style='text-align:left'>{html.escape(part_title(part))}</th>"
                        f"<th>{score:g} / {top:g}</th>{note}</tr>")
            if folded:
                continue
        rows.extend(_task_row(task) for task in mine)
    ahead = "".join(f"<p><b>{html.escape(line)}</b></p>" for line in next_step(report["tasks"]))
    warning = ""
    if report.get("sandbox") == "none":
        why = report.get("unsandboxed") or "bubblewrap is not installed: install it (apt-get install bubblewrap)"
        warning = (f"<p><b>Graded without a sandbox</b> ({html.escape(why)}): your code ran with your own rights. "
                   "The scores are the same; an instructor's grading runs your code in the sandbox.</p>")
    if any(task["status"] == "grader_error" for task in report["tasks"]):
        warning += f"<p><b>The grader failed:</b> {html.escape(GRADER_FAILED_WARNING.split(': ', 1)[1])}.</p>"
    return warning + (
        "<table><thead><tr><th></th><th>task</th><th>notebook</th><th>points</th><th>status</th>"
        "<th style='text-align:left'>feedback</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>{ahead}"
        f"<p><b>{report['score']:g} / {report['max_score']:g}</b> — {ending}</p>"
    )


def student_page_html(student: str, report: dict, tampered: dict[str, list[str]]) -> str:
    """A graded student's summary page (nbgrader's feedback ``index.html``): score per part and task, links to each
    notebook's feedback page, the graded cells found changed (``tampered``: notebook -> findings)."""
    esc = html.escape
    rows = []
    for part in dict.fromkeys(task["part"] for task in report["tasks"]):
        tasks = [task for task in report["tasks"] if task["part"] == part]
        rows.append(f"<tr class='part'><th colspan='3'>{esc(part)}</th><th>{sum(t['score'] for t in tasks):g} / "
                    f"{sum(t['max_score'] for t in tasks):g}</th></tr>")
        for task in tasks:
            page = TASKS[task["id"]].notebook.removesuffix(".ipynb") + ".html"
            rows.append(f"<tr><td><code>{esc(task['id'])}</code></td><td><a href='{esc(page)}'>{esc(page)}</a></td>"
                        f"<td>{esc(_student_status(task))}</td><td>{task['score']:g} / {task['max_score']:g}</td></tr>")
    notes = "".join(f"<li>{esc(notebook)}.ipynb: {esc(finding)}</li>"
                    for notebook, found in sorted(tampered.items()) for finding in found)
    tampering = (f"<h2>Changed graded cells</h2><p>These were restored before grading; your instructor sees this list."
                 f"</p><ul>{notes}</ul>") if notes else ""
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>agstate lab: {esc(student)}</title>"
            "<style>body{font-family:sans-serif;max-width:50em;margin:2em auto}td,th{padding:.2em .8em;text-align:left}"
            "tr.part th{border-top:1px solid #999;padding-top:.6em}</style></head><body>"
            f"<h1>agstate lab — {esc(student)}</h1><p><b>{report['score']:g} / {report['max_score']:g}</b> autograded "
            "points, on the course's own examples. Written answers are graded by your instructor and count on top: "
            "the Assignment List's score is the total, theirs included.</p>"
            f"<table><thead><tr><th>task</th><th>feedback</th><th>status</th><th>points</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>{tampering}</body></html>\n")


def _student_status(task: dict) -> str:
    """A task's status as a student reads it: a module that is not there is "missing", not an "error"."""
    if task["feedback"].startswith("missing:"):
        return "missing"
    return "not graded: the grader failed" if task["status"] == "grader_error" else task["status"].replace("_", " ")
