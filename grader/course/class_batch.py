"""One ``agstate-grade`` run over many submissions, in the background, its reports read as they land.

Autograde and the course audit grade a whole class at once this way: a
fresh ``python -I -m grader`` started from ``/`` (so no file of the course
folder or of a submission can stand in for the grader), writing its log to
a private folder; each report is taken from the log as soon as it is there.
"""

import atexit
import hashlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from grader.reports.gradebook import read_records
from grader.reports.report import Report
from grader.reports.safe import display_path

__all__ = ["BackgroundBatch", "package_digest"]


class BackgroundBatch:
    """One ``agstate-grade`` run over many submissions in the background; reports read from its log as they land."""

    def __init__(self, paths: list[Path], settings: list[str], jobs: int):
        self.scratch = Path(tempfile.mkdtemp(prefix="agstate-autograde-"))  # 0700: only this user reads the reports
        self.log, self.offset, self.reports = self.scratch / "grades.jsonl", 0, {}
        self.digests = {display_path(str(path)): package_digest(path / "agstate") for path in paths}
        # -I and cwd="/": no file of the course folder or of a submission can stand in for the grader.
        command = [sys.executable, "-I", "-m", "grader", *map(str, paths), "--out", str(self.scratch / "grades.csv"),
                   *settings, "--jobs", str(max(1, jobs))]
        self.errors = open(self.scratch / "stderr", "w+")
        if not paths:  # agstate-grade without a path would grade its working directory
            command = [sys.executable, "-c", ""]
        self.process = subprocess.Popen(command, cwd="/", stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=self.errors)
        # A formgrader's server lives on after its Autograde button's run: the batch is reaped when it ends, not at exit.
        threading.Thread(target=self.process.wait, name="agstate-batch-reaper", daemon=True).start()
        atexit.register(self.close)

    def close(self) -> None:
        """Stops the batch if it still runs (autograde ended early) and removes its reports."""
        if self.process.poll() is None:
            # Ctrl-C's signal, not SIGTERM's: agstate-grade then ends its batch as it ends any interrupted one, its
            # sandboxes stopped and its own temporary folder removed (SIGTERM left an empty agstate-batch-* behind).
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.errors.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def report(self, key: str) -> Report | None:
        while key not in self.reports:
            finished = self.process.poll() is not None
            self._read()
            if finished or key in self.reports:
                break
            time.sleep(0.05)
        return self.reports.get(key)

    def problem(self) -> str:
        self.errors.seek(0)
        lines = [line for line in self.errors.read().splitlines() if line.strip()]
        return lines[-1] if lines else f"exit status {self.process.returncode}"

    def _read(self) -> None:
        if not self.log.exists():
            return
        records, self.offset = read_records(self.log, self.offset)
        self.reports.update((report["submission"], report) for report in records)


def package_digest(package: Path) -> str:
    """Content digest of a submission's package: a changed file means it is graded again.

    Of plain files only, as the grader copies them (``grader.sandbox.staging``): a link is never followed, here or there.
    """
    digest = hashlib.sha256()
    found = []
    if package.is_dir() and not package.is_symlink():
        for directory, _, files in os.walk(package):
            found += [Path(directory, name) for name in files if name.endswith(".py")]
    for path in sorted(found):
        if stat.S_ISREG(path.lstat().st_mode):
            digest.update(str(path.relative_to(package)).encode("utf-8", "surrogateescape") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
