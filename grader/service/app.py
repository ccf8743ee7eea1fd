"""The grading service's web side: who asks (the hub says), what they may send, the grade, the log.

Routes, under the prefix the hub gives the service (``/services/<name>/``):

- ``POST api/check``: ``{"files": {"state.py": "<text>", ...}, "target": "state.keep_max"}``
  (``target``: a task id, a part, or null for every part of the course) →
  the JSON report ``agstate-grade --json`` prints, graded with the
  student's practice seed;
- ``GET api/results``: the caller's own checks, from the log;
- ``GET api/health``: no login; says the service is up.

The caller is whoever the hub says owns the request's token (``Authorization:
token <JUPYTERHUB_API_TOKEN>``, the student's server's own token): a user,
never a service, holding the scope ``access:services!service=<name>``. A
request names no student: a student grades only as themself.

The practice seed comes from the environment (``AGSTATE_PRACTICE_SEED``, in
the hub's service declaration): a command line is readable by every account
on the server, an environment only by the service's. It is never the
course's grading seed, which the service does not have: a counterexample
seen while practising decides no grade.
"""

import argparse
import asyncio
import json
import os
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

from jupyterhub.services.auth import HubAuthenticated
from tornado import httpserver, ioloop, web

from grader.catalog import MODULES, TASKS, target_options
from grader.lifetime import die_with_parent
from grader.reports.students import student_seed
from grader.service.limits import StudentLimits
from grader.service.upload import MAX_BYTES, UploadError, digest, parse_upload, write_package

__all__ = ["Settings", "Checks", "make_app", "main"]

class Settings(argparse.Namespace):
    practice_seed: int
    parts: list[str]
    examples: int | None  # None: agstate-grade's own default, as autograde's
    timeout: float | None
    jobs: int
    per_minute: int
    log: Path
    work: Path


class GraderFailure(RuntimeError):
    """The grader could not grade (not the student's fault): said as such, never recorded as a score."""


_CHECK_PREFIX = "check-"


def clear_work(work: Path) -> None:
    """The folders of checks a killed service left (it alone writes in ``work``): removed when it starts again."""
    work.mkdir(mode=0o700, parents=True, exist_ok=True)
    for left in work.glob(f"{_CHECK_PREFIX}*"):
        shutil.rmtree(left, ignore_errors=True)


class Checks:
    """The grading: at most ``jobs`` at once, each in a fresh private folder, through ``agstate-grade``; and the log."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.slots = asyncio.Semaphore(settings.jobs)
        self.limits = StudentLimits(settings.per_minute)

    def options(self, target: str | None) -> list[str]:
        if target is None:
            return ["--part", *self.settings.parts]
        try:
            options = target_options(target)
        except ValueError as error:
            raise UploadError(str(error)) from None
        part = target if target in MODULES else TASKS[target].part
        if part not in self.settings.parts:
            raise UploadError(f"{target!r} is not graded in this course (its parts: {', '.join(self.settings.parts)})")
        return options

    def course_options(self) -> list[str]:
        """The course's settings that differ from agstate-grade's defaults (as the course's autograde gives them)."""
        options = []
        if self.settings.examples is not None:
            options += ["--examples", str(self.settings.examples)]
        if self.settings.timeout is not None:
            options += ["--timeout", repr(self.settings.timeout)]
        return options

    async def grade(self, student: str, files: dict[str, str], target: str | None) -> dict:
        options = self.options(target)
        seed = student_seed(self.settings.practice_seed, student)
        with tempfile.TemporaryDirectory(prefix=_CHECK_PREFIX, dir=self.settings.work) as folder:
            write_package(files, Path(folder) / "submission")
            scratch = Path(folder) / "tmp"  # the grader's own temporary files: gone with the folder, whatever happens
            scratch.mkdir()
            async with self.slots:
                grading = await asyncio.create_subprocess_exec(
                    sys.executable, "-I", "-m", "grader", Path(folder) / "submission", "--json", "--seed", str(seed),
                    "--jobs", "1", *self.course_options(), *options, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                    env={**os.environ, "TMPDIR": str(scratch)},
                    preexec_fn=die_with_parent)  # a killed service takes its gradings along
                try:
                    out, err = await grading.communicate()
                except asyncio.CancelledError:  # the student went away: the grading goes too
                    grading.kill()
                    await grading.wait()
                    raise
        try:
            report = json.loads(out)
        except ValueError:
            report = None
        if not isinstance(report, dict) or "tasks" not in report:
            raise GraderFailure(err.decode(errors="replace").strip()[-2000:] or f"agstate-grade exited {grading.returncode}")
        report["submission"] = student  # not the service's folder, which is gone
        return report

    def record(self, student: str, outcome: str, **details) -> None:
        """One line of the log per request, written at once (O_APPEND): a killed service leaves no half line."""
        entry = {"time": time.time(), "student": student, "outcome": outcome, **details}
        line = (json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n").encode()
        descriptor = os.open(self.settings.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(descriptor, line)
        finally:
            os.close(descriptor)

    def results(self, student: str) -> list[dict]:
        try:
            lines = self.settings.log.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        entries = [json.loads(line) for line in lines if line.strip()]
        return [entry for entry in entries if entry.get("student") == student]


class _Handler(HubAuthenticated, web.RequestHandler):
    """A request of a hub user, as the hub says; errors as JSON with a message a student can act on."""

    def initialize(self, checks: Checks):
        self.checks = checks

    def check_hub_user(self, model):
        model = super().check_hub_user(model)
        return model if model is not None and model.get("kind", "user") == "user" else None

    def student(self) -> str:
        if self.current_user is None:
            raise Refusal(403, "the hub does not know this token, or it may not use the grading service")
        return self.current_user["name"]

    def write_error(self, status_code, **kwargs):
        # The message goes in the body: the status line is latin-1 and one line, a file name may be neither.
        error = kwargs.get("exc_info", (None, None))[1]
        if isinstance(error, Refusal) and error.retry_after is not None:
            self.set_header("Retry-After", str(error.retry_after))  # after send_error's clear()
        self.finish({"error": error.message if isinstance(error, Refusal) else self._reason})


class Refusal(web.HTTPError):
    """A request refused, with a message for the student (in the JSON body) and, for a limit, when to retry."""

    def __init__(self, status: int, message: str, retry_after: int | None = None):
        super().__init__(status)
        self.message, self.retry_after = message, retry_after


class CheckHandler(_Handler):
    async def post(self):
        student = self.student()
        refusal = self.checks.limits.refusal(student)
        if refusal is not None:
            message, retry = refusal
            self.checks.record(student, "refused", why=message)
            raise Refusal(429, f"{message}; try again in {retry} s", retry)
        started = time.monotonic()
        try:
            files, target = parse_upload(self.request.body)
            report = await self.checks.grade(student, files, target)
        except UploadError as error:
            self.checks.record(student, "bad request", why=str(error))
            raise Refusal(400, str(error)) from None
        except GraderFailure as error:
            self.checks.record(student, "grader failure", why=str(error))
            raise Refusal(500, "the grading service could not grade (not your code's fault): tell your instructor") from None
        finally:
            self.checks.limits.done(student)
        self.checks.record(student, "graded", digest=digest(files), target=target, seed=report["seed"], score=report["score"],
                           max_score=report["max_score"], seconds=round(time.monotonic() - started, 2))
        self.finish(report)


class ResultsHandler(_Handler):
    def get(self):
        self.finish({"results": self.checks.results(self.student())})


class HealthHandler(web.RequestHandler):
    def get(self):
        self.finish({"status": "ok"})


def make_app(checks: Checks, prefix: str = "/") -> web.Application:
    routes = [("api/check", CheckHandler), ("api/results", ResultsHandler)]
    handlers = [(prefix + path, handler, {"checks": checks}) for path, handler in routes]
    handlers.append((prefix + "api/health", HealthHandler))
    # cookie_secret: the HubAuthenticated mixin signs nothing here (tokens only), but tornado asks for one.
    return web.Application(handlers, cookie_secret=secrets.token_bytes(32))


def parse_settings(argv: list[str] | None = None) -> Settings:
    parser = argparse.ArgumentParser(prog="agstate-grading-service", description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", dest="parts", nargs="+", choices=list(MODULES), default=list(MODULES),
                        help="the parts the course grades (default: every part)")
    parser.add_argument("--examples", type=int, help="examples per rule, as the course's (default: agstate-grade's)")
    parser.add_argument("--timeout", type=float, help="seconds per task, as the course's (default: agstate-grade's)")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)), help="checks graded at once (default: cores)")
    parser.add_argument("--per-minute", type=int, default=6, help="checks a student may start a minute (default 6)")
    parser.add_argument("--log", type=Path, default=Path("agstate-checks.jsonl"), help="the log, a JSON line per request")
    parser.add_argument("--work", type=Path, default=Path("checks-in-progress"),
                        help="the service's own folder for the checks in progress (default: checks-in-progress)")
    settings = parser.parse_args(argv, namespace=Settings())
    seed = os.environ.get("AGSTATE_PRACTICE_SEED", "")
    if not seed.isdigit():
        parser.error("set AGSTATE_PRACTICE_SEED (a whole number; not the course's grading seed) in the service's "
                     "environment")
    settings.practice_seed = int(seed)
    return settings


def main(argv: list[str] | None = None) -> None:
    settings = parse_settings(argv)
    clear_work(settings.work)
    url = urlparse(os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:10101"))
    app = make_app(Checks(settings), os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/"))
    server = httpserver.HTTPServer(app, max_body_size=MAX_BYTES + 100_000)
    server.listen(url.port or 80, url.hostname or "127.0.0.1")
    ioloop.IOLoop.current().start()
