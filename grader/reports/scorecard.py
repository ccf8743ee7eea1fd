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
from grader.i18n import N_, _, ngettext
from grader.reports.report import Report, TaskResult, points
from grader.reports.safe import first_cause, for_terminal, other_causes

__all__ = ["render_text", "scorecard_html", "student_page_html", "next_step", "untouched", "status_text", "NO_SANDBOX_WARNING",
           "GRADER_FAILED_WARNING"]

# Constants in English (tests and callers read them); _() translates them where they are shown.
NO_SANDBOX_WARNING = N_("graded WITHOUT a sandbox: the learner's code ran as you, with access to everything you can read")
GRADER_FAILED_WARNING = N_("the grader itself failed on some task: its score says nothing about your code (see the task)")
_STATUS_MARK = {"passed": "✅", "failed": "❌", "not_implemented": "⬜", "error": "💥", "timeout": "⏱", "crashed": "💀",
                "grader_error": "🛠"}
_ONE_LINE = 160  # characters of a further failing rule in the terminal's scorecard, without --verbose


def status_word(status: str) -> str:
    """A status as a learner reads it: "not started", "failing", "grader failed"…"""
    words = {"passed": N_("passed"), "not_implemented": N_("not started"), "failed": N_("failing"), "error": N_("error"),
             "timeout": N_("timeout"), "crashed": N_("crashed"), "grader_error": N_("grader failed")}
    return _(words[status]) if status in words else status.replace("_", " ")


# A status as the terminal's scorecard prints it: the report's own word, in English; a catalog may say it otherwise.
_STATUS_KEY = {"passed": N_("passed"), "failed": N_("failed"), "not_implemented": N_("not_implemented"), "error": N_("error"),
               "timeout": N_("timeout"), "crashed": N_("crashed"), "grader_error": N_("grader_error")}


def untouched(tasks: list[TaskResult]) -> bool:
    """Whether none of ``tasks`` is started: every one is still its stub."""
    return bool(tasks) and all(task["status"] == "not_implemented" for task in tasks)


def _parts(tasks: list[TaskResult]) -> list[tuple[str, list[TaskResult]]]:
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


def next_step(tasks: list[TaskResult]) -> list[str]:
    """Where to go next, as one line (none when everything passed).

    The part in progress first (started, not finished): its first task not
    passing. With none in progress, the part after the last one finished.
    """
    groups = [(part, mine) for part, mine in _parts(tasks) if part in MODULES]
    waiting = [task for task in tasks if task["status"] != "passed" and task["id"] in TASKS]
    if not groups or not waiting:
        return []
    first = _next(waiting[0]["id"])
    if all(untouched(mine) for _part, mine in groups):
        if whole_parts([task["id"] for task in tasks]) is None:  # some tasks only: about them, not the part
            return [first]
        where = "00_welcome.ipynb" if len(groups) > 1 else _first_lesson(groups[0][0])
        return [_("nothing is written yet: start with notebook {notebook}").format(notebook=where)]
    for _part, mine in groups:
        begun = [task for task in mine if task["status"] != "passed" and task["id"] in TASKS]
        if begun and not untouched(mine):
            return [_next(begun[0]["id"])]
    done = [index for index, (_part, mine) in enumerate(groups) if all(t["status"] == "passed" for t in mine)]
    if not done:
        return [first]
    later = groups[done[-1] + 1:] + groups[:done[-1]]
    following = next((part for part, mine in later if untouched(mine)), None)
    if following is None:
        return []
    finished = ", ".join(part_title(groups[index][0]).split(".")[0] for index in done)
    return [_("part {done} done; next: part {part}, notebook {notebook}").format(
        done=finished, part=part_title(following), notebook=_first_lesson(following))]


def _next(task_id: str) -> str:
    return _("next: {task}, in notebook {notebook}").format(task=task_id, notebook=TASKS[task_id].notebook)


def render_text(report: Report, verbose: bool = False, footer: str | None = None) -> str:
    """A scorecard for a terminal, ending with the command that repeats the run (``footer`` instead, when given: a
    course's grading service chooses the seed, and a student has no agstate-grade to repeat it with).

    A failing task shows its first failing rule in full and every other one
    on a line of its own (in full with ``verbose``: ``--verbose``).
    """
    lines = [_("agstate-grade {submission} (seed {seed})").format(submission=report["submission"], seed=report["seed"])]
    if report.get("sandbox") == "none":
        lines.append("  " + _("WARNING: {warning}").format(warning=_(NO_SANDBOX_WARNING)))
        if report.get("unsandboxed"):
            lines.append("  " + _("(no sandbox: {why})").format(why=report["unsandboxed"]))
    if any(task["status"] == "grader_error" for task in report["tasks"]):
        lines.append("  " + _("WARNING: {warning}").format(warning=_(GRADER_FAILED_WARNING)))
    width = max((len(t["id"]) for t in report["tasks"]), default=10)
    shortened = False
    groups = _parts(report["tasks"])
    for part, mine in groups:
        if len(groups) > 1:
            score, top = points(mine)
            folded = (_(", not started: begin with notebook {notebook}").format(notebook=_first_lesson(part))
                      if untouched(mine) and len(mine) > 1 else "")
            lines.append(_("part {part}: {score}/{top}").format(part=part_title(part), score=f"{score:.1f}", top=f"{top:.1f}")
                         + folded)
            if folded:
                continue
        for task in mine:
            took = f" {task['seconds']:6.2f} s" if "seconds" in task else ""
            lines.append(f"  {task['id']:<{width}}  {task['score']:5.1f}/{task['max_score']:<5.1f}{took} "
                         f"{_(_STATUS_KEY.get(task['status'], task['status']))}")
            if task["status"] == "passed":
                continue
            lines.append(f"  {'':<{width}}  {first_cause(task['feedback'])}")
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
    repeat = _("repeat: {command}").format(command=f"agstate-grade {report['submission']}{only} --seed {report['seed']}"
                                                     f"{unsandboxed}")
    lines.append(_("score {score}/{top}  ({footer})").format(score=f"{report['score']:.1f}", top=f"{report['max_score']:.1f}",
                                                             footer=footer or repeat))
    if shortened:
        lines.append(_("every failing rule in full: add --verbose (or --json for the counterexamples)"))
    return for_terminal("\n".join(lines))


def _others_html(task: TaskResult) -> str:
    """A failing task's further failing rules, each in full, folded under a line saying how many."""
    broken = other_causes(task.get("rules", []))  # the same failure's rules are said in the feedback
    if not broken:
        return ""
    items = "".join(f"<li value='{number}'><b>{html.escape(rule['rule'])}</b>: {html.escape(rule['feedback'])}</li>"
                    for number, rule in broken)
    more = ngettext("{count} more rule not passing", "{count} more rules not passing", len(broken)).format(count=len(broken))
    return f"<details><summary>{html.escape(more)}</summary><ol>{items}</ol></details>"


def _task_row(task: TaskResult) -> str:
    known = TASKS.get(task["id"])
    feedback = "" if task["status"] == "passed" else html.escape(first_cause(task["feedback"])) + _others_html(task)
    notebook = html.escape(known.notebook) if known is not None else ""
    return (f"<tr><td>{_STATUS_MARK.get(task['status'], '')}</td><td><code>{html.escape(task['id'])}</code></td>"
            f"<td>{notebook}</td><td>{task['score']:g} / {task['max_score']:g}</td><td>{status_word(task['status'])}</td>"
            f"<td style='text-align:left'>{feedback}</td></tr>")


def scorecard_html(report: Report, repeat: str | None = None, footer: str | None = None) -> str:
    """The scorecard as an HTML table: a row per task, its notebook, points, status and feedback; then where to go next,
    and the seed with the call that repeats the run (``footer`` instead, when given: a graded notebook's page shows no
    grading seed, and a grading service chooses the seed itself).

    A report of several parts (``check()`` with no target, the progress view)
    gets a row per part, with its points, above the part's tasks; a part not
    started is that row alone.
    """
    repeat = repeat or f"check(..., seed={report['seed']})"
    ending = html.escape(footer) if footer else html.escape(_("seed {seed} (repeat with {call})")).format(
        seed=report["seed"], call=f"<code>{html.escape(repeat)}</code>")
    rows = []
    groups = _parts(report["tasks"])
    for part, mine in groups:
        if len(groups) > 1:
            score, top = points(mine)
            folded = untouched(mine) and len(mine) > 1
            begin = ngettext("{count} task; begin with notebook {notebook}", "{count} tasks; begin with notebook {notebook}",
                             len(mine)).format(count=len(mine), notebook=_first_lesson(part))
            note = (f"<td>{html.escape(_('not started'))}</td><td style='text-align:left'>{html.escape(begin)}</td>"
                    if folded else "<th colspan='2'></th>")
            rows.append(f"<tr><th colspan='3' style='text-align:left'>{html.escape(part_title(part))}</th>"
                        f"<th>{score:g} / {top:g}</th>{note}</tr>")
            if folded:
                continue
        rows.extend(_task_row(task) for task in mine)
    ahead = "".join(f"<p><b>{html.escape(line)}</b></p>" for line in next_step(report["tasks"]))
    warning = ""
    if report.get("sandbox") == "none":
        why = report.get("unsandboxed") or _("bubblewrap is not installed: install it (apt-get install bubblewrap)")
        warning = (f"<p><b>{html.escape(_('Graded without a sandbox'))}</b> " + html.escape(_(
            "({why}): your code ran with your own rights. The scores are the same; an instructor's grading runs your code "
            "in the sandbox.")).format(why=html.escape(why)) + "</p>")
    if any(task["status"] == "grader_error" for task in report["tasks"]):
        warning += (f"<p><b>{html.escape(_('The grader failed:'))}</b> "
                    f"{html.escape(_('its score says nothing about your code (see the task)'))}.</p>")
    heads = "".join(f"<th>{html.escape(word)}</th>" for word in (_("task"), _("notebook"), _("points"), _("status")))
    return warning + (
        f"<table><thead><tr><th></th>{heads}<th style='text-align:left'>{html.escape(_('feedback'))}</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>{ahead}"
        f"<p><b>{report['score']:g} / {report['max_score']:g}</b> — {ending}</p>"
    )


def student_page_html(student: str, report: Report, tampered: dict[str, list[str]]) -> str:
    """A graded student's summary page (nbgrader's feedback ``index.html``): score per part and task, links to each
    notebook's feedback page, the graded cells found changed (``tampered``: notebook -> findings)."""
    esc = html.escape
    rows = []
    for part in dict.fromkeys(task["part"] for task in report["tasks"]):
        tasks = [task for task in report["tasks"] if task["part"] == part]
        score, top = points(tasks)
        rows.append(f"<tr class='part'><th colspan='3'>{esc(part)}</th><th>{score:g} / {top:g}</th></tr>")
        for task in tasks:
            page = TASKS[task["id"]].notebook.removesuffix(".ipynb") + ".html"
            rows.append(f"<tr><td><code>{esc(task['id'])}</code></td><td><a href='{esc(page)}'>{esc(page)}</a></td>"
                        f"<td>{esc(_student_status(task))}</td><td>{task['score']:g} / {task['max_score']:g}</td></tr>")
    notes = "".join(f"<li>{esc(notebook)}.ipynb: {esc(finding)}</li>"
                    for notebook, found in sorted(tampered.items()) for finding in found)
    tampering = (f"<h2>{esc(_('Changed graded cells'))}</h2><p>"
                 f"{esc(_('These were restored before grading; your instructor sees this list.'))}</p><ul>{notes}</ul>"
                 ) if notes else ""
    heads = "".join(f"<th>{esc(word)}</th>" for word in (_("task"), _("feedback"), _("status"), _("points")))
    score = f"<b>{report['score']:g} / {report['max_score']:g}</b>"
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>agstate lab: {esc(student)}</title>"
            "<style>body{font-family:sans-serif;max-width:50em;margin:2em auto}td,th{padding:.2em .8em;text-align:left}"
            "tr.part th{border-top:1px solid #999;padding-top:.6em}</style></head><body>"
            f"<h1>agstate lab — {esc(student)}</h1><p>" + esc(_(
                "{score} autograded points, on the course's own examples. Written answers are graded by your instructor "
                "and count on top: the Assignment List's score is the total, theirs included.")).format(score=score) + "</p>"
            f"<table><thead><tr>{heads}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>{tampering}</body></html>\n")


def _student_status(task: TaskResult) -> str:
    """A task's status as a student reads it: a module that is not there is "missing", not an "error"."""
    if task["feedback"].startswith("missing:"):
        return _("missing")
    if task["status"] == "grader_error":
        return _("not graded: the grader failed")
    return status_text(task["status"])


def status_text(status: str) -> str:
    """A status in words, as nbgrader's pages and messages say it: ``not_implemented`` -> "not implemented"."""
    words = {"passed": N_("passed"), "failed": N_("failed"), "not_implemented": N_("not implemented"), "error": N_("error"),
             "timeout": N_("timeout"), "crashed": N_("crashed"), "grader_error": N_("grader error")}
    return _(words[status]) if status in words else status.replace("_", " ")
