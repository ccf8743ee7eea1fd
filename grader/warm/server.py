"""The warm grader of a service or a cluster's worker: many gradings at once, each in a fork that knows one student.

    python -I -m grader.warm.server     # started by grader.warm.client, never by hand

A cold ``agstate-grade`` pays, on every check, a new interpreter, the
grader's imports, a new zygote (the clean process every sandboxed learner
process is forked from) and the drawing of the examples. This process pays
the first three once, and keeps each seed's examples for the next grading
at that seed: a student's second check at their practice seed draws
nothing. Each request is graded in a fork of it, in a session of its own,
which first forgets every other request in flight and every example not
drawn at its own seeds: a fork grading one student holds nothing of
another. A cancel kills the fork's process group, the grading and all it
started; each sandbox it held ends as its control socket closes. The
learner's code never runs here nor in a fork: only in the zygote's
sandboxed children, as in every grading.

Protocol, one JSON line each way (``grader.warm.client`` speaks it):

- out first: ``{"ready": true}``, once the zygote takes requests;
- ``{"id": 1, "check": [<agstate-grade's arguments, --seed among them>], "tmp": "<folder>", "lang": "es"}``:
  ``agstate-grade`` as a cold run with those arguments would grade (``grader.cli.main``), with ``AGSTATE_LANG``
  set to ``lang`` when it is given (one of ``grader.i18n.LANGUAGES``);
- ``{"id": 2, "batch": {"plans": [[<submission>, [<task id>, ...]], ...], "seeds": [...], "examples": 80,
  "timeout": 20.0, "memory": 1024, "jobs": 2, "sandbox": true, "costs": "seconds", "cwd": "<folder>"}, "tmp": "<folder>"}``:
  ``grader.engine.batch.grade_many``, a shard of a class; its stdout is ``{"reports": [...]}`` in the plans' order;
- ``{"id": 3, "draw": {"seeds": [...], "tasks": [<task id>, ...], "examples": 80}, "tmp": "<folder>"}``: those
  seeds' examples drawn ahead, at the lowest priority, and kept as a grading's are (``examples``: null for
  ``agstate-grade``'s default): a class's practice seeds, so that each student's first check draws nothing;
- ``{"id": 1, "cancel": true}``: that grading stopped now;
- each grading is answered once, ``{"id": 1, "returncode": 0, "stdout": "...", "stderr": "..."}`` (-9: cancelled).

It exits when its stdin closes, stopping what still runs.
"""

import json
import os
import select
import signal
import sys
import tempfile
from collections import OrderedDict

from grader.i18n import LANGUAGES, translation
from grader.lifetime import die_with_parent
from grader.warm import KEPT_SEEDS

__all__ = ["serve", "KEPT_SEEDS"]


class _Grading:
    """One request graded in a fork of this process; its output, errors and newly drawn examples in three files."""

    def __init__(self, request_id, seeds: list[int], tmp: str, job, running: dict, lang: str | None = None):
        from grader.engine import bank

        self.id, self.seeds = request_id, seeds
        self.files = [tempfile.TemporaryFile() for _ in range(3)]  # stdout, stderr, banks
        self.pid = os.fork()
        if self.pid == 0:
            code = 2
            try:
                os.setsid()  # its own group: a cancel stops it with all it started
                die_with_parent()
                for other in running.values():  # what it knows of the other gradings goes first
                    other.forget()
                running.clear()
                bank.see_only(seeds)
                tempfile.tempdir = tmp  # its staged copies and scratch: in the requester's folder, gone with it
                os.environ["TMPDIR"] = tmp
                if lang is not None:  # the student's language, for this grading only: the fork's own environment
                    os.environ["AGSTATE_LANG"] = lang
                quiet = os.open(os.devnull, os.O_RDONLY)
                os.dup2(quiet, 0)
                os.dup2(self.files[0].fileno(), 1)
                os.dup2(self.files[1].fileno(), 2)
                code = job()
                self.files[2].write(bank.export_json())
            except BaseException as exc:  # whatever happens, the requester gets an answer
                print(f"agstate-grade: the warm grader failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                self.files[2].flush()
                os._exit(code if isinstance(code, int) else 2)
        self.pidfd = os.pidfd_open(self.pid)

    def cancel(self) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def finish(self) -> dict:
        """Its answer, once the fork has ended; the examples it drew merged here."""
        from grader.engine import bank

        _, status = os.waitpid(self.pid, 0)
        os.close(self.pidfd)
        out, err, banks = (self._read(handle) for handle in self.files)
        try:
            bank.merge_json(banks)
        except ValueError:
            pass  # a fork killed before it wrote them: the next grading at that seed draws them again
        return {"id": self.id, "returncode": os.waitstatus_to_exitcode(status), "stdout": out.decode(errors="replace"),
                "stderr": err.decode(errors="replace")}

    def forget(self) -> None:
        """In another grading's fork: this one's files and process are not its business."""
        os.close(self.pidfd)
        for handle in self.files:
            handle.close()

    @staticmethod
    def _read(handle) -> bytes:
        handle.seek(0)
        data = handle.read()
        handle.close()
        return data


def _job(request: dict):
    """What the fork runs for ``request``, and the seeds it grades at; ValueError for a request that is not one."""
    if isinstance(request.get("check"), list) and all(isinstance(arg, str) for arg in request["check"]):
        args = request["check"]
        if "--seed" not in args[:-1]:
            raise ValueError("a check names its --seed (the examples kept are per seed)")

        def check():
            from grader import cli

            return cli.main(args)

        return check, [int(args[args.index("--seed") + 1])]
    batch = request.get("batch")
    if isinstance(batch, dict):
        plans = [(submission, list(task_ids)) for submission, task_ids in batch["plans"]]
        seeds = [int(seed) for seed in batch["seeds"]]

        def grade_batch():
            from grader.engine.batch import grade_many

            os.chdir(batch.get("cwd") or "/")  # where its relative paths were given, on a file system shared

            reports = [None] * len(plans)

            def keep(index, report):
                reports[index] = report

            grade_many(plans, seeds, int(batch["examples"]), float(batch["timeout"]), int(batch["memory"]),
                       int(batch["jobs"]), keep, sandbox=bool(batch["sandbox"]), costs=batch.get("costs"))
            sys.stdout.write(json.dumps({"reports": reports}))
            return 0

        return grade_batch, sorted(set(seeds))
    draw = request.get("draw")
    if isinstance(draw, dict):
        from grader.catalog import TASKS
        from grader.engine import DEFAULT_EXAMPLES

        seeds, task_ids = [int(seed) for seed in draw["seeds"]], [str(task_id) for task_id in draw["tasks"]]
        examples = DEFAULT_EXAMPLES if draw.get("examples") is None else int(draw["examples"])
        if not set(task_ids) <= set(TASKS) or examples < 1:
            raise ValueError("a draw names known task ids and at least one example")

        def draw_ahead():
            from grader.engine import predraw

            os.nice(19)  # ahead of time: every check comes first
            for seed in seeds:
                predraw.draw_ahead(task_ids, seed, examples)
            return 0

        return draw_ahead, sorted(set(seeds))
    raise ValueError('a request holds "check" (a list of arguments), "batch" or "draw"')


def _warm_up() -> None:
    """Draw one task's examples here, once: Hypothesis's own first draw (about a second) is paid before any check."""
    from grader.catalog import TASKS
    from grader.engine import DEFAULT_EXAMPLES, bank, predraw

    predraw.draw_ahead([next(iter(TASKS))], 0, DEFAULT_EXAMPLES)
    bank.keep_only([])
    for lang in LANGUAGES:  # each catalog read once here, not again in every fork that grades in its language
        translation(lang)


def serve(requests: int, replies, kept_seeds: int = KEPT_SEEDS) -> None:
    """Answer the request lines read from descriptor ``requests`` on ``replies`` (a text file), until it ends."""
    from grader import caches
    from grader.sandbox import zygote

    caches.keep_hypothesis_out_of_the_workspace()
    the_zygote = zygote.shared()  # first: it imports LangGraph while this process imports the grader
    from grader import cli  # noqa: F401 - imported once, here: every fork starts with them
    from grader.engine import bank
    from grader.engine.batch import grade_many  # noqa: F401

    _warm_up()
    running: dict[int, _Grading] = {}  # pidfd -> grading
    seeds: OrderedDict[int, None] = OrderedDict()  # the seeds whose examples are kept, the latest used last
    ready = False

    def answer(reply: dict) -> None:
        replies.write(json.dumps(reply) + "\n")
        replies.flush()

    pending = b""
    try:
        while True:
            watched = [requests, *running] + ([] if ready else [the_zygote])
            found = select.select(watched, [], [])[0]
            if not ready and the_zygote in found:
                the_zygote.wait_ready()  # (a zygote that died is each grading's to report, as the grader's failure)
                answer({"ready": True})
                ready = True
            for pidfd in [fd for fd in found if fd in running]:
                grading = running.pop(pidfd)
                answer(grading.finish())
                for seed in grading.seeds:
                    seeds[seed] = None
                    seeds.move_to_end(seed)
                while len(seeds) > kept_seeds:
                    seeds.popitem(last=False)
                if set(bank.seeds()) - set(seeds):
                    bank.keep_only(seeds)
            if requests not in found:
                continue
            chunk = os.read(requests, 1 << 16)
            if not chunk:
                return
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                _take(line, running, answer)
    finally:
        for grading in running.values():
            grading.cancel()
            grading.finish()
        zygote.close_shared()


def _take(line: bytes, running: dict, answer) -> None:
    try:
        request = json.loads(line)
        request_id = request["id"]
    except (ValueError, KeyError, TypeError):
        return  # not a request of the client's: nobody to answer
    if request.get("cancel"):
        for grading in running.values():
            if grading.id == request_id:
                grading.cancel()
        return
    try:
        job, seeds = _job(request)
        tmp = str(request["tmp"])
        lang = request.get("lang")
        if lang is not None and lang not in LANGUAGES:
            raise ValueError(f"lang {str(lang)[:20]!r} is none of {', '.join(LANGUAGES)}")
    except (ValueError, KeyError, TypeError) as exc:
        answer({"id": request_id, "returncode": 2, "stdout": "", "stderr": f"agstate-grade: a bad request to the warm "
                                                                           f"grader: {type(exc).__name__}: {exc}"})
        return
    grading = _Grading(request_id, seeds, tmp, job, running, lang)
    running[grading.pidfd] = grading


if __name__ == "__main__":
    die_with_parent()  # its requester gone, nobody reads its answers
    serve(sys.stdin.fileno(), sys.stdout)
