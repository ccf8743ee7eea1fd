"""A batch's results on disk: a JSON-lines log written as each submission finishes, and a CSV gradebook.

The log is appended and flushed per submission, so an interrupted batch keeps
every finished report and ``--resume`` skips them; the CSV (submission, each
task's score, total) is rewritten from the log after every submission.
"""

import csv
import json
import os
import tempfile
from pathlib import Path

from grader.tasks import TASKS

__all__ = ["Gradebook", "log_path", "read_log"]


def log_path(out: str) -> Path:
    return Path(out).with_suffix(".jsonl")


def read_log(out: str) -> dict[str, dict]:
    """Reports already logged, by submission path; a torn last line (an interrupted write) is ignored."""
    path = log_path(out)
    if not path.exists():
        return {}
    reports = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            report = json.loads(line)
        except json.JSONDecodeError:
            continue
        reports[report["submission"]] = report
    return reports


class Gradebook:
    """Keeps the log and the CSV of one ``--out FILE`` up to date."""

    def __init__(self, out: str, resumed: dict[str, dict]):
        self.csv_path = Path(out)
        self.log_path = log_path(out)
        self.reports = dict(resumed)
        self.csv_path.parent.mkdir(parents=True, exist_ok=True)
        # A fresh batch starts a fresh log; a resumed one keeps what it has.
        self.log_path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.reports.values()),
                                 encoding="utf-8")

    def add(self, report: dict) -> None:
        with self.log_path.open("a", encoding="utf-8") as log:
            log.write(json.dumps(report, ensure_ascii=False) + "\n")
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
                writer.writerow([report["submission"], *(scores.get(c, "") for c in columns),
                                 report["score"], report["max_score"]])
        os.replace(temporary, self.csv_path)  # a reader never sees half a gradebook
