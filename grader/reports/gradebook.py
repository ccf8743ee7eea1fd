"""A batch's results on disk: a JSON-lines log written as each submission finishes, and a CSV gradebook.

The log is appended and flushed per submission, so an interrupted batch keeps
every finished report and ``--resume`` skips them; the CSV (submission, the
student's seed, each task's score, total) is rewritten from the log after
every submission. Each log record also says when it was written and by which
grader (``"logged"``, never part of a printed report); ``--regrade`` appends a
student's new record marked as such, and leaves every other line alone: the
last record of a submission is its grade, the ones before are its history.

Whatever a report holds, each log record is one line: strict ASCII JSON, so
no line separator (U+2028, U+2029) or control character can split it, and it
is read back by splitting on ``\\n`` only. The log is opened with
``O_NOFOLLOW``: a symbolic link planted at its path is refused, not followed;
and it is written only when no other account can have written it or can
replace it (``grader.reports.owned``), before and after it is opened;
the CSV replaces its path atomically, so a link there is replaced, never
written through. A cell that a spreadsheet would run as a formula (a
folder named ``=cmd(...)``) is quoted as text.
"""

import csv
import functools
import json
import os
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from grader.catalog import TASKS
from grader.reports.owned import UntrustedLog, check_opened, check_owned
from grader.reports.report import Report
from grader.reports.safe import atomic_write, clean

__all__ = ["Gradebook", "log_path", "lms_path", "read_log", "read_records", "record", "unlogged", "grader_version"]


def log_path(out: str) -> Path:
    return Path(out).with_suffix(".jsonl")


def lms_path(out: str, lms: str) -> Path:
    """Where ``--lms`` writes the grades an LMS imports: ``grades.csv`` -> ``grades.canvas.csv``."""
    return Path(out).with_suffix(f".{lms}.csv")


def record(report: Report, logged: dict | None = None) -> str:
    """One log line: ASCII-only strict JSON, newline-terminated; ``logged`` (when, by what) added when given."""
    return json.dumps(clean({**report, "logged": logged} if logged else report), ensure_ascii=True, allow_nan=False) + "\n"


def unlogged(report: Report) -> Report:
    """A logged report as grading gave it: without the log's own ``"logged"`` entry."""
    return {key: value for key, value in report.items() if key != "logged"}


@functools.cache
def grader_version() -> str:
    """``agstate-lab 0.1.0``, and the commit when the grader runs from a git checkout (``+g1a2b3c4``)."""
    try:
        version = f"agstate-lab {metadata.version('agstate-lab')}"
    except metadata.PackageNotFoundError:
        version = "agstate-lab (not installed)"
    try:
        commit = subprocess.run(["git", "-C", str(Path(__file__).parent), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=5, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return version
    return f"{version}+g{commit}" if commit else version


def read_log(out: str) -> dict[str, Report]:
    """Reports already logged, by submission (the last record of each); a torn last line (an interrupted write) is
    ignored. What ``--resume`` and ``--regrade`` trust is checked first (``grader.reports.owned``)."""
    path = log_path(out)
    if not path.exists():
        return {}
    return {report["submission"]: report for report in read_records(path)[0]}


def read_records(path: Path, offset: int = 0) -> tuple[list[Report], int]:
    """The log's records from byte ``offset`` on, and where the next read starts: the one reader of a log, finished or
    still written (a line being written waits for the next read; a line that is not a report is skipped)."""
    with open(path, "rb") as handle:
        handle.seek(offset)
        chunk = handle.read()
    complete = chunk[:chunk.rfind(b"\n") + 1]
    records = []
    for line in complete.split(b"\n"):
        try:
            report = json.loads(line)
        except ValueError:
            continue
        if isinstance(report, dict) and isinstance(report.get("submission"), str):
            records.append(report)
    return records, offset + len(complete)


def _open_log(path: Path, fresh: bool):
    """The log, opened to append (``fresh``: emptied first), once it is known to be this account's alone: a log of
    another account's is never written through, nor emptied."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_APPEND
    try:
        log = os.fdopen(os.open(path, flags, 0o644), "w", encoding="ascii")
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write the log {path}: {exc.strerror}"
                      + (" (it is a symbolic link)" if path.is_symlink() else "")) from None
    try:
        check_opened(path, log)
    except UntrustedLog:
        log.close()
        raise
    if fresh:
        log.truncate(0)
    return log


def _cell(value):
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


class Gradebook:
    """Keeps the log and the CSV of one ``--out FILE`` up to date."""

    def __init__(self, out: str, resumed: dict[str, Report], regrading: bool = False):
        self.csv_path = Path(out)
        self.log_path = log_path(out)
        self.reports = dict(resumed)
        self.regrading = regrading
        check_owned(self.log_path)  # agstate-grade says so before it grades; any other writer of a log too
        self.csv_path.parent.mkdir(parents=True, exist_ok=True)
        # A fresh batch starts a fresh log; a resumed one keeps what it has, and its gradebook is written from it
        # at once (a log gathered from several machines, with nothing left to grade, gives its gradebook so).
        # A regrade only appends: every line of the log stays as it is.
        if not regrading:
            with _open_log(self.log_path, fresh=True) as log:
                log.write("".join(record(report) for report in self.reports.values()))
        if self.reports:
            self._write_csv()

    def add(self, report: Report) -> None:
        logged = {"at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"), "by": grader_version()}
        if self.regrading and report["submission"] in self.reports:  # one not in the log yet is new, not regraded
            logged["regraded"] = True
        with _open_log(self.log_path, fresh=False) as log:
            log.write(record(report, logged))
            log.flush()
            os.fsync(log.fileno())
        self.reports[report["submission"]] = report
        self._write_csv()

    def _write_csv(self) -> None:
        graded = {task["id"] for report in self.reports.values() for task in report["tasks"]}
        columns = [task_id for task_id in TASKS if task_id in graded]
        with atomic_write(self.csv_path, newline="") as sheet:  # a reader never sees half a gradebook
            writer = csv.writer(sheet)
            writer.writerow(["submission", "seed", *columns, "total", "max_score"])
            for report in sorted(self.reports.values(), key=lambda r: r["submission"]):
                scores = {task["id"]: task["score"] for task in report["tasks"]}
                writer.writerow([_cell(report["submission"]), report["seed"], *(scores.get(c, "") for c in columns),
                                 report["score"], report["max_score"]])
