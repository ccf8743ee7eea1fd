"""A batch's results on disk: a JSON-lines log written as each submission finishes, and a CSV gradebook.

The log is appended and flushed per submission, so an interrupted batch keeps
every finished report and ``--resume`` skips them; the CSV (submission, each
task's score, total) is rewritten from the log after every submission.

Whatever a report holds, each log record is one line: strict ASCII JSON, so
no line separator (U+2028, U+2029) or control character can split it, and it
is read back by splitting on ``\\n`` only. The log is opened with
``O_NOFOLLOW``: a symbolic link planted at its path is refused, not followed;
the CSV replaces its path atomically, so a link there is replaced, never
written through. A cell that a spreadsheet would run as a formula (a
folder named ``=cmd(...)``) is quoted as text.
"""

import csv
import json
import os
import tempfile
from pathlib import Path

from grader.output import clean
from grader.tasks import TASKS

__all__ = ["Gradebook", "log_path", "read_log", "record"]


def log_path(out: str) -> Path:
    return Path(out).with_suffix(".jsonl")


def record(report: dict) -> str:
    """One log line: ASCII-only strict JSON, newline-terminated."""
    return json.dumps(clean(report), ensure_ascii=True, allow_nan=False) + "\n"


def read_log(out: str) -> dict[str, dict]:
    """Reports already logged, by submission; a torn last line (an interrupted write) is ignored."""
    path = log_path(out)
    if not path.exists():
        return {}
    reports = {}
    with open(path, "rb") as handle:
        for line in handle.read().split(b"\n"):
            try:
                report = json.loads(line)
            except ValueError:
                continue
            if isinstance(report, dict) and isinstance(report.get("submission"), str):
                reports[report["submission"]] = report
    return reports


def _open_log(path: Path, fresh: bool):
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | (os.O_TRUNC if fresh else os.O_APPEND)
    try:
        return os.fdopen(os.open(path, flags, 0o644), "w", encoding="ascii")
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write the log {path}: {exc.strerror}"
                      + (" (it is a symbolic link)" if path.is_symlink() else "")) from None


def _cell(value):
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


class Gradebook:
    """Keeps the log and the CSV of one ``--out FILE`` up to date."""

    def __init__(self, out: str, resumed: dict[str, dict]):
        self.csv_path = Path(out)
        self.log_path = log_path(out)
        self.reports = dict(resumed)
        self.csv_path.parent.mkdir(parents=True, exist_ok=True)
        # A fresh batch starts a fresh log; a resumed one keeps what it has, and its gradebook is written from it
        # at once (a log gathered from several machines, with nothing left to grade, gives its gradebook so).
        with _open_log(self.log_path, fresh=True) as log:
            log.write("".join(record(report) for report in self.reports.values()))
        if self.reports:
            self._write_csv()

    def add(self, report: dict) -> None:
        with _open_log(self.log_path, fresh=False) as log:
            log.write(record(report))
            log.flush()
            os.fsync(log.fileno())
        self.reports[report["submission"]] = report
        self._write_csv()

    def _write_csv(self) -> None:
        graded = {task["id"] for report in self.reports.values() for task in report["tasks"]}
        columns = [task_id for task_id in TASKS if task_id in graded]
        handle, temporary = tempfile.mkstemp(dir=self.csv_path.parent, prefix=".gradebook-", suffix=".csv")
        with os.fdopen(handle, "w", newline="", encoding="utf-8") as sheet:
            writer = csv.writer(sheet)
            writer.writerow(["submission", *columns, "total", "max_score"])
            for report in sorted(self.reports.values(), key=lambda r: r["submission"]):
                scores = {task["id"]: task["score"] for task in report["tasks"]}
                writer.writerow([_cell(report["submission"]), *(scores.get(c, "") for c in columns),
                                 report["score"], report["max_score"]])
        os.chmod(temporary, 0o644)
        os.replace(temporary, self.csv_path)  # a reader never sees half a gradebook
