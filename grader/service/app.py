"""The grading service's web side: who asks (the hub says), what they may send, the grade, the log.

Routes, under the prefix the hub gives the service (``/services/<name>/``):

- ``POST api/check``: ``{"files": {"state.py": "<text>", ...}, "target": "state.keep_max", "lang": "es"}``
  (``target``: a task id, a part, or null for every part of the course;
  ``lang``: the student's language, ``grader.i18n.LANGUAGES``, optional) →
  the JSON report ``agstate-grade --json`` prints, graded in the sandbox
  with the student's practice seed, its sentences in that language;
- ``GET api/results``: the caller's own checks, from the log;
- ``GET api/health``: no login; says the service is up (so does the prefix itself, which the hub asks now and then).

The caller is whoever the hub says owns the request's token (``Authorization:
token <JUPYTERHUB_API_TOKEN>``, the student's server's own token): a user,
never a service, holding the scope ``access:services!service=<name>``. A
request names no student: a student grades only as themself.

A student's practice seed is an HMAC of their name under a secret (a file
only the service's account reads, ``--secret-file``, or
``AGSTATE_PRACTICE_SECRET`` in its environment; never its command line,
which every account reads), and no number of seen seeds gives the secret
back. It is never
the course's grading seed, which the service does not have: a
counterexample seen while practising decides no grade.

The service grades only in the sandbox: it does not start where bubblewrap
cannot make one, and it passes ``--require-sandbox`` to every grading. Nor
does it start where another account can read its grader, its secret or its
log, or write any of them (``grader.service.privacy``).
"""

import argparse
import asyncio
import grp
import hashlib
import hmac
import json
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict, deque
from pathlib import Path
from urllib.parse import urlparse

from jupyterhub.services.auth import HubAuthenticated, UserNotAllowed
from tornado import httpserver, ioloop, web

from grader.catalog import MODULES, TASKS, target_options, tasks_of
from grader.i18n import N_, Sentence, known
from grader.package_files import MAX_BODY
from grader.reports.report import SANDBOX
from grader.service.connections import HEADER_DEADLINE, Connections, GuardedServer, connection_cap
from grader.service.privacy import privacy_problems
from grader.service.quota import StudentLimits
from grader.service.upload import UploadError, digest, parse_upload, write_package
from grader.warm import KEPT_SEEDS
from grader.warm.client import WarmGrader, WarmGraderGone

__all__ = ["Settings", "Checks", "make_app", "make_server", "practice_seed", "main"]

SECRET_VARIABLE = "AGSTATE_PRACTICE_SECRET"
MIN_SECRET = 16  # characters: python3 -c "import secrets; print(secrets.token_hex(16))" gives 32
# What a student reads of their own log lines: never the grader's own messages, which are the instructor's.
RESULT_FIELDS = ("time", "student", "outcome", "target", "digest", "seed", "score", "max_score", "seconds", "why")
KEPT_RESULTS = 200  # a student's latest lines, served from memory


class Settings(argparse.Namespace):
    practice_secret: str
    parts: list[str]
    examples: int | None  # None: agstate-grade's own default, as autograde's
    timeout: float | None
    jobs: int
    per_minute: int
    check_limit: float
    log: Path
    work: Path
    secret_file: Path | None
    instructors: str | None  # a Unix group whose members may read the log
    max_connections: int
    max_unauthenticated: int
    scheduler: str | None  # a Dask scheduler's address: the checks graded on its cluster
    roster: Path | None  # the course's students, one per line: their practice examples drawn as the service starts
    roster_group: str | None  # a Unix group whose members are on the roster too (the hub's students)


def practice_seed(secret: str, student: str) -> int:
    """``student``'s practice seed, in [0, 2**31): an HMAC under the course's secret, which no seed gives back."""
    mac = hmac.new(secret.encode(), student.encode("utf-8", "surrogateescape"), hashlib.sha256).digest()
    return int.from_bytes(mac[:8], "big") % 2**31


class GraderFailure(RuntimeError):
    """The grader could not grade (not the student's fault): said as such, never recorded as a score."""


class OverTime(RuntimeError):
    """The grading ran past the service's limit for one check: the student's code may hang, or the check is too big."""


_CHECK_PREFIX = "check-"
_WARM_FOLDER = "warm-grader"


def clear_work(work: Path) -> None:
    """The folders of checks a killed service left (it alone writes in ``work``): removed when it starts again."""
    work.mkdir(mode=0o700, parents=True, exist_ok=True)
    for left in [*work.glob(f"{_CHECK_PREFIX}*"), work / _WARM_FOLDER]:
        shutil.rmtree(left, ignore_errors=True)


class Checks:
    """The grading: at most ``jobs`` at once, each in a fresh private folder, by a warm grader; and the log.

    A student has at most one check in flight (``StudentLimits``) and the
    waiting ones take a slot in the order they came (asyncio's semaphore is
    first come, first served), so no student is ever two places ahead.

    The warm grader (``grader.warm.server``, another process: the engine
    never comes in here) grades each check as ``agstate-grade`` with the
    same arguments would, in a fork of a process that has the grader
    imported, its zygote up and each student's examples kept from their last
    check at their practice seed.
    """

    def __init__(self, settings: Settings):
        self.settings = settings
        self.on_cluster = bool(getattr(settings, "scheduler", None))
        if self.on_cluster:
            from grader.warm.cluster import ClusterChecks  # Dask's client: only for a service that uses it

            self.graders = ClusterChecks(settings.scheduler)
        else:
            self.graders = _OnThisMachine(settings.work)
        self.slots = asyncio.Semaphore(settings.jobs)
        # This machine's cores, when it grades (a cluster's workers each grade a check with one): a check that finds
        # cores no other check holds grades its tasks side by side on them, with the same report (grader.engine.batch).
        self.cores = 1 if self.on_cluster else len(os.sched_getaffinity(0))
        self.grading = 0  # checks holding a slot now
        self._ahead = None  # drawing the roster's examples (start)
        self.limits = StudentLimits(settings.per_minute)
        self._results: dict[str, deque] = defaultdict(lambda: deque(maxlen=KEPT_RESULTS))
        self._refusals: dict[str, tuple[float, int]] = {}  # per student: when a refusal was last logged, since then
        self._load_results()

    async def start(self) -> None:
        """The warm grader started now (or the cluster joined), so that the first check finds it ready; the roster's
        examples drawn from then on."""
        await self.graders.start()
        students = roster(getattr(self.settings, "roster", None), getattr(self.settings, "roster_group", None))
        if students and not self.on_cluster:  # a cluster's workers draw their own
            self._ahead = asyncio.create_task(self._draw_ahead(students))

    async def _draw_ahead(self, students: list[str]) -> None:
        """Each student's practice examples of the course's tasks, drawn one student after another at the lowest
        priority (checks come first), and kept by the warm grader: a student's first check draws nothing."""
        task_ids = [task.id for part in self.settings.parts for task in tasks_of(part)]
        for student in students:
            seed = practice_seed(self.settings.practice_secret, student)
            answer = await self.graders.draw(seed, task_ids, self.settings.examples)
            if answer["returncode"] != 0:  # the checks draw their own examples, as without a roster
                print(f"agstate-grading-service: drawing the roster's examples stopped: {answer['stderr'][-500:]}",
                      file=sys.stderr)
                return

    async def close(self) -> None:
        if self._ahead is not None:
            self._ahead.cancel()
        await self.graders.close()

    def options(self, target: str | None) -> list[str]:
        if target is None:
            return ["--part", *self.settings.parts]
        try:
            options = target_options(target)
        except ValueError:
            raise UploadError(Sentence(N_("unknown task or part {target}"), {"target": repr(target[:100])})) from None
        part = target if target in MODULES else TASKS[target].part
        if part not in self.settings.parts:
            raise UploadError(Sentence(N_("{target} is not graded in this course (its parts: {parts})"),
                                       {"target": repr(target), "parts": ", ".join(self.settings.parts)}))
        return options

    def course_options(self) -> list[str]:
        """The course's settings that differ from agstate-grade's defaults (as the course's autograde gives them)."""
        options = []
        if self.settings.examples is not None:
            options += ["--examples", str(self.settings.examples)]
        if self.settings.timeout is not None:
            options += ["--timeout", repr(self.settings.timeout)]
        return options

    async def grade(self, student: str, files: dict[str, bytes], target: str | None, lang: str | None = None) -> dict:
        options = ["--json", "--require-sandbox", "--seed", str(practice_seed(self.settings.practice_secret, student)),
                   *self.course_options(), *self.options(target)]
        async with self.slots:
            self.grading += 1
            jobs = max(1, self.cores - self.grading + 1)  # the cores other checks do not hold (one at least)
            try:  # over time, or the student gone (cancelled): the grading is stopped with all it started
                answer = await asyncio.wait_for(
                    self.graders.check(files, [*options, "--jobs", str(jobs)], self.settings.check_limit, lang),
                    self.settings.check_limit)
            except TimeoutError:
                raise OverTime() from None
            except WarmGraderGone as gone:
                raise GraderFailure(str(gone)) from None
            finally:
                self.grading -= 1
        try:
            report = json.loads(answer["stdout"])
        except ValueError:
            report = None
        if not isinstance(report, dict) or "tasks" not in report:
            raise GraderFailure(answer["stderr"].strip()[-2000:] or f"agstate-grade exited {answer['returncode']}")
        if report.get("sandbox") != SANDBOX:  # --require-sandbox says so already: a second lock, not the first
            raise GraderFailure(f"agstate-grade graded without the sandbox ({report.get('sandbox')!r})")
        report["submission"] = student  # not the service's folder, which is gone
        return report

    def record(self, student: str, outcome: str, **details) -> None:
        """One line of the log per request, appended whole (O_APPEND, written to the end): no line is interleaved."""
        entry = {"time": time.time(), "student": student, "outcome": outcome, **details}
        line = (json.dumps(entry, sort_keys=True) + "\n").encode("ascii")  # escaped: any text a request held is written
        mode = 0o640 if getattr(self.settings, "instructors", None) else 0o600  # the instructors' group reads it
        descriptor = os.open(self.settings.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode)
        try:
            written = 0
            while written < len(line):
                written += os.write(descriptor, line[written:])
        finally:
            os.close(descriptor)
        self._results[student].append(entry)

    def record_refusal(self, student: str, why: str) -> None:
        """A student held back by the limits: logged once a minute at most (a loop of check() fills no disk);
        ``refused`` counts the refusals since the last line."""
        now = time.monotonic()
        last, since = self._refusals.get(student, (-60.0, 0))
        if now - last < 60:
            self._refusals[student] = (last, since + 1)
            return
        self._refusals[student] = (now, 0)
        self.record(student, "refused", why=why, refused=since + 1)

    def results(self, student: str) -> list[dict]:
        """The student's latest log lines, as a student reads them (``RESULT_FIELDS``)."""
        return [{key: entry[key] for key in RESULT_FIELDS if key in entry} for entry in self._results.get(student, ())]

    def _load_results(self) -> None:
        """The log's lines, by student, when the service starts; a line a crash cut short is passed over, and ended
        (the next line would be glued to it)."""
        try:
            content = self.settings.log.read_bytes()
        except FileNotFoundError:
            return
        if content and not content.endswith(b"\n"):
            with self.settings.log.open("ab") as log:
                log.write(b"\n")
        for line in content.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("student"), str):
                self._results[entry["student"]].append(entry)


class _OnThisMachine:
    """The checks graded by a warm grader of the service's own (``grader.warm.server``), each in a private folder."""

    def __init__(self, work: Path):
        self.work = work
        warm = work / _WARM_FOLDER  # the zygote's and its sandboxes' temporary files
        warm.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.grader = WarmGrader({**_grading_environment(), "TMPDIR": str(warm)})

    async def start(self) -> None:
        await self.grader.start()

    async def check(self, files: dict[str, bytes], options: list[str], limit: float, lang: str | None = None) -> dict:
        """``agstate-grade <files as a package> options``, as the warm grader answers (``limit``: the caller's), in
        ``lang`` (None: the service's own environment's language)."""
        with tempfile.TemporaryDirectory(prefix=_CHECK_PREFIX, dir=self.work) as folder:
            write_package(files, Path(folder) / "submission")
            scratch = Path(folder) / "tmp"  # the grader's own temporary files: gone with the folder, whatever happens
            scratch.mkdir()
            return await self.grader.grade({"check": [str(Path(folder) / "submission"), *options], "tmp": str(scratch),
                                            "lang": lang})

    async def draw(self, seed: int, task_ids: list[str], examples: int | None) -> dict:
        """``seed``'s examples of ``task_ids`` drawn and kept by the warm grader (``grader.warm.server``'s "draw")."""
        with tempfile.TemporaryDirectory(prefix=_CHECK_PREFIX, dir=self.work) as folder:
            return await self.grader.grade({"draw": {"seeds": [seed], "tasks": task_ids, "examples": examples},
                                            "tmp": folder})

    async def close(self) -> None:
        await self.grader.close()


def roster(path: Path | None, group: str | None = None) -> list[str]:
    """The students of a roster file, one per line (blank lines and repeats left out), then the accounts of the Unix
    group ``group`` (its members, then those whose own group it is, by name), at most ``KEPT_SEEDS``: the warm grader
    keeps that many students' examples."""
    names = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()] if path is not None else []
    if group is not None:
        entry = grp.getgrnam(group)
        names += [*entry.gr_mem, *sorted(account.pw_name for account in pwd.getpwall() if account.pw_gid == entry.gr_gid)]
    return list(dict.fromkeys(name for name in names if name))[:KEPT_SEEDS]


def _grading_environment() -> dict[str, str]:
    """What a grading inherits of the service's environment: the path, the locale and the lab's own settings; not
    the secret, nor the hub's token of the service (the learner's code never sees either: this is the second lock)."""
    kept = {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "HOME"}
    return {key: value for key, value in os.environ.items()
            if (key in kept or key.startswith("AGSTATE_")) and key != SECRET_VARIABLE}


class _Handler(HubAuthenticated, web.RequestHandler):
    """A request of a hub user, as the hub says; errors as JSON with a message a student can act on."""

    def initialize(self, checks: Checks):
        self.checks = checks

    async def prepare(self):
        # The hub's answer is awaited: HubAuthenticated's own get_current_user would block the loop, every
        # student's request with it, for as long as the hub takes.
        self.current_user = await self.hub_user()
        if self.current_user is not None:  # a connection the hub vouched for is no stranger's: it is not closed for one
            self.settings["connections"].trust(self.request.connection.stream)

    async def hub_user(self) -> dict | None:
        model = await self.hub_auth.get_user(self, sync=False)
        if not model:
            return None
        try:
            model = self.check_hub_user(model)
        except UserNotAllowed:
            return None
        return model if model is not None and model.get("kind", "user") == "user" else None

    def student(self) -> str:
        if self.current_user is None:
            raise Refusal(403, Sentence(N_("the hub does not know this token, or it may not use the grading service")))
        return self.current_user["name"]

    def write_error(self, status_code, **kwargs):
        # The message goes in the body: the status line is latin-1 and one line, a file name may be neither.
        error = kwargs.get("exc_info", (None, None))[1]
        if isinstance(error, Refusal) and error.retry_after is not None:
            self.set_header("Retry-After", str(error.retry_after))  # after send_error's clear()
        self.finish({"error": error.message.said_in(self.lang()) if isinstance(error, Refusal) else self._reason})

    def lang(self) -> str:
        """The language the student reads (check() sends it as Accept-Language); English when none of the lab's."""
        return known(self.request.headers.get("Accept-Language"))


class Refusal(web.HTTPError):
    """A request refused, with a message for the student (in the JSON body, in their language) and, for a limit,
    when to retry."""

    def __init__(self, status: int, message: Sentence, retry_after: int | None = None):
        super().__init__(status)
        self.message, self.retry_after = message, retry_after


@web.stream_request_body
class CheckHandler(_Handler):
    """A check: who asks and whether they may are settled before the body comes, and a stranger's body, or that of
    a student over a limit, is dropped as it comes, never held; then the grade.

    The refusal is answered once the body is in, not before: the hub's proxy, still sending it, would turn an
    early answer into a 502/503, which check() takes for a restarting service.
    """

    grading: asyncio.Task | None = None
    admitted: str | None = None  # the student whose turn this request holds (StudentLimits), until released
    refusal: Refusal | None = None

    async def prepare(self):
        self.request.connection.set_max_body_size(MAX_BODY)  # streamed: held only once admitted, else dropped
        await super().prepare()
        self.body = bytearray()
        try:
            student = self.student()
        except Refusal as refusal:
            self.refusal = refusal
            return
        held = self.checks.limits.refusal(student)
        if held is not None:
            message, retry = held
            self.checks.record_refusal(student, str(message))
            self.refusal = Refusal(429, Sentence(N_("{why}; try again in {retry} s"), {"why": message, "retry": retry}), retry)
            return
        self.admitted = student

    def data_received(self, chunk: bytes):
        if self.refusal is None:
            self.body += chunk  # at most MAX_BODY: the server closes a longer one (make_server)

    async def post(self):
        if self.refusal is not None:
            raise self.refusal
        student, started, sent = self.admitted, time.monotonic(), {}
        try:
            # One task from the body to the report: a client gone while the body is parsed cancels it too.
            self.grading = asyncio.ensure_future(self._grade(student, sent))
            report = await self.grading
        except UploadError as error:
            self.checks.record(student, "bad request", why=str(error))
            raise Refusal(400, error.sentence) from None
        except OverTime:
            limit = self.checks.settings.check_limit
            self.checks.record(student, "over time", **sent, seconds=limit)
            raise Refusal(422, Sentence(N_("the check ran past the service's limit of {limit} s: your code may hang or "
                                           "loop; check one task at a time (check(\"state.keep_max\")) to find which"),
                                        {"limit": f"{limit:g}"})) from None
        except GraderFailure as error:
            self.checks.record(student, "grader failure", **sent, detail=str(error))
            raise Refusal(500, Sentence(N_("the grading service could not grade (not your code's fault): tell your "
                                           "instructor"))) from None
        except asyncio.CancelledError:  # the connection closed (on_connection_close): nobody to answer
            self.checks.record(student, "abandoned", **sent, seconds=round(time.monotonic() - started, 2))
            return
        finally:
            self.release()
        self.checks.record(student, "graded", **sent, seed=report["seed"], score=report["score"],
                           max_score=report["max_score"], seconds=round(time.monotonic() - started, 2))
        self.finish(report)

    async def _grade(self, student: str, sent: dict) -> dict:
        """The body parsed (off the loop: a 6 MB body takes a JSON parser most of a second, every other student
        waiting) and graded; ``sent`` gets the target and the files' digest, for the log."""
        files, target, lang = await asyncio.get_running_loop().run_in_executor(None, parse_upload, bytes(self.body))
        self.body = bytearray()
        sent.update(target=target, digest=digest(files))
        return await self.checks.grade(student, files, target, lang)

    def release(self) -> None:
        """The student's turn given back, once (a body never finished, a refusal, an answer)."""
        if self.admitted is not None:
            self.checks.limits.done(self.admitted)
            self.admitted = None

    def on_finish(self):
        self.release()

    def on_connection_close(self):
        # Tornado lets the handler run on when the client goes: its grading is stopped here, its turn given back
        # (also when the body never came whole, and post never runs). Tornado's own ends the wait for the body:
        # without it, a body cut short keeps its handler, and what it holds, alive for good.
        super().on_connection_close()
        if self.grading is not None:
            self.grading.cancel()
        else:
            self.release()


class ResultsHandler(_Handler):
    def get(self):
        self.finish({"results": self.checks.results(self.student())})


class HealthHandler(web.RequestHandler):
    def get(self):
        self.finish({"status": "ok"})


def make_app(checks: Checks, prefix: str = "/") -> web.Application:
    routes = [("api/check", CheckHandler), ("api/results", ResultsHandler)]
    handlers = [(prefix + path, handler, {"checks": checks}) for path, handler in routes]
    # The prefix too: the hub asks a service's URL every minute, and logged each 404 it got.
    handlers += [(prefix + "api/health", HealthHandler), (prefix, HealthHandler)]
    # cookie_secret: the HubAuthenticated mixin signs nothing here (tokens only), but tornado asks for one.
    return web.Application(handlers, cookie_secret=secrets.token_bytes(32))


SMALL_BODY = 64 * 1024  # any request but a check's: tornado holds a body whole before any handler, or login, runs


def make_server(app: web.Application, max_connections: int = 1000, max_unauthenticated: int = 100,
                header_deadline: float = HEADER_DEADLINE) -> httpserver.HTTPServer:
    """The service's HTTP server: small bodies (a check streams its own, up to ``MAX_BODY``), no connection held
    open by silence, and at most so many connections, strangers' first to go (``grader.service.connections``)."""
    server = GuardedServer(app, max_body_size=SMALL_BODY, idle_connection_timeout=header_deadline, body_timeout=60)
    server.connections = app.settings["connections"] = Connections(connection_cap(max_connections), max_unauthenticated)
    return server


def _positive(kind):
    def parse(text: str):
        value = kind(text)
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
        return value
    parse.__name__ = kind.__name__
    return parse


def parse_settings(argv: list[str] | None = None) -> Settings:
    parser = argparse.ArgumentParser(prog="agstate-grading-service", description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", dest="parts", nargs="+", choices=list(MODULES), default=list(MODULES),
                        help="the parts the course grades (default: every part)")
    parser.add_argument("--examples", type=_positive(int), help="examples per rule, as the course's (default: agstate-grade's)")
    parser.add_argument("--timeout", type=_positive(float), help="seconds per task, as the course's (default: agstate-grade's)")
    parser.add_argument("--jobs", type=_positive(int), default=len(os.sched_getaffinity(0)),
                        help="checks graded at once (default: cores)")
    parser.add_argument("--per-minute", type=_positive(int), default=6, help="checks a student may start a minute (default 6)")
    parser.add_argument("--check-limit", type=_positive(float), default=120.0, metavar="SECONDS",
                        help="seconds one check may take, queue not counted, before it is stopped (default 120)")
    parser.add_argument("--log", type=Path, default=Path("agstate-checks.jsonl"), help="the log, a JSON line per request")
    parser.add_argument("--work", type=Path, default=Path("checks-in-progress"),
                        help="the service's own folder for the checks in progress (default: checks-in-progress)")
    parser.add_argument("--secret-file", type=Path, metavar="FILE",
                        help=f"the practice secret's file, readable by the service's account only (default: "
                             f"{SECRET_VARIABLE} in the environment)")
    parser.add_argument("--max-connections", type=_positive(int), default=1000, metavar="N",
                        help="connections held at once, at most (default 1000; fewer if the descriptors allow fewer)")
    parser.add_argument("--max-unauthenticated", type=_positive(int), default=100, metavar="N",
                        help="connections held with no request from a user the hub vouches for; a new one closes the "
                             "oldest (default 100)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="a Dask scheduler (tcp://host:8786): each check graded on its cluster, by the warm grader "
                             "of a worker (docs/instructor/at-scale.md; default: on this machine)")
    parser.add_argument("--roster", type=Path, metavar="FILE",
                        help="the course's students, one per line as the hub names them: each one's practice examples "
                             f"are drawn as the service starts, so that a first check draws none (at most {KEPT_SEEDS})")
    parser.add_argument("--roster-group", metavar="GROUP",
                        help="a Unix group whose accounts are on the roster too: the hub's students "
                             "(agstate-course hub-config gives the students' group)")
    parser.add_argument("--instructors", metavar="GROUP",
                        help="a Unix group whose members may read the log (agstate-course practice-log)")
    settings = parser.parse_args(argv, namespace=Settings())
    # Absolute: the warm grader and the gradings run from another working directory than the service's.
    settings.log, settings.work = settings.log.absolute(), settings.work.absolute()
    if settings.secret_file is not None:
        try:
            secret = settings.secret_file.read_text().strip()
        except (OSError, UnicodeDecodeError) as error:
            parser.error(f"cannot read the practice secret from {settings.secret_file}: {error}")
        where = str(settings.secret_file)
    else:
        secret, where = os.environ.get(SECRET_VARIABLE, ""), f"{SECRET_VARIABLE} in the service's environment"
    if len(secret) < MIN_SECRET or len(set(secret)) < MIN_SECRET // 2:  # "aaaa...": long, and guessed at once
        parser.error(f"set {where} to a secret of at least {MIN_SECRET} characters, {MIN_SECRET // 2} of them "
                     "different, for instance the output of: python3 -c \"import secrets; print(secrets.token_hex(32))\"")
    settings.practice_secret = secret
    if settings.roster_group is not None:
        try:
            grp.getgrnam(settings.roster_group)
        except KeyError:
            parser.error(f"--roster-group: no Unix group named {settings.roster_group!r} on this machine")
    return settings


def sandbox_problem() -> str | None:
    """Why agstate-grade cannot make its sandbox as this account, here (None: it can); asked in a child process, as
    the engine and the sandbox stay out of the service's."""
    probe = "from grader.sandbox.bubblewrap import unavailable; print(unavailable() or '', end='')"
    done = subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True, text=True, timeout=60,
                          env=_grading_environment())
    if done.returncode != 0:
        return f"the sandbox's probe failed: {done.stderr.strip()[-500:]}"
    return done.stdout or None


def main(argv: list[str] | None = None) -> int:
    settings = parse_settings(argv)
    problem = sandbox_problem()
    if problem is not None:
        print(f"agstate-grading-service: refusing to start, as it grades only in the sandbox: {problem}", file=sys.stderr)
        return 2
    exposed = privacy_problems(settings.log.resolve(), settings.work.resolve(), settings.secret_file, settings.instructors)
    for problem in exposed:
        print(f"agstate-grading-service: refusing to start, as students could reach what it keeps: {problem}",
              file=sys.stderr)
    if exposed:
        return 2
    clear_work(settings.work)
    url = urlparse(os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:10101"))
    checks = Checks(settings)
    app = make_app(checks, os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/"))
    make_server(app, settings.max_connections, settings.max_unauthenticated).listen(url.port or 80, url.hostname or "127.0.0.1")
    ioloop.IOLoop.current().add_callback(checks.start)
    ioloop.IOLoop.current().start()
    return 0
