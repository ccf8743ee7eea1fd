"""A warm grader for one notebook kernel, so that ``check()`` answers in a fraction of a second.

    python -I -m grader.notebook.warm      # started by grader.notebook.check, from "/", one per kernel

A cold ``agstate-grade`` pays, on every call, a new interpreter, the grader's
imports, a new zygote (the clean process every sandboxed learner process is
forked from, which imports LangGraph) and the drawing of every rule's random
examples. This process pays them once:

- it imports the grader and starts its zygote;
- it chooses the kernel's seed: a check without a seed of its own is graded
  with it, so a kernel's checks meet the same examples (a counterexample
  stays put while the learner fixes it; a new kernel, new examples);
- a drawer, a fork of it at the lowest priority, draws those examples ahead
  (``grader.engine.predraw``), the part of the kernel's notebook first
  ($JPY_SESSION_NAME), and hands them over as it goes.

Its first line on stdout is ``{"ready": true}``, once its zygote takes
requests (``_Readiness``); requests are taken before that. It reads requests, one JSON line on stdin each (``{"args": [...]}``, the
``agstate-grade`` arguments). Each is graded in a fork of it, exactly as a
cold ``agstate-grade`` with those arguments (and the seed) would grade it
(``grader.cli.main``: the same sandbox, limits and report, so the same seed
gives the same report), and answered with one JSON line (``{"returncode",
"stdout", "stderr"}``); the examples the fork drew are kept here for the
next. The learner's code never runs in this process or its forks: only in
the zygote's sandboxed children. It exits when its stdin closes (the kernel
has gone).
"""

import glob
import json
import os
import random
import re
import select
import shutil
import signal
import sys
import tempfile

from grader.lifetime import die_with_parent

__all__ = ["serve", "tasks_in_order"]


def tasks_in_order(notebook: str | None) -> list[str]:
    """Every task id, those of ``notebook``'s part first (a name like ``24_optimistic_concurrency.ipynb``).

    A notebook's part is that of the first task checked in it or after it (07, which checks nothing, is part B's).
    """
    from grader.catalog import TASKS

    number = re.match(r"(\d\d)_", os.path.basename(notebook or ""))
    part = next((task.part for task in TASKS.values() if number and task.notebook[:2] >= number.group(1)), None)
    return sorted(TASKS, key=lambda task_id: TASKS[task_id].part != part)


def _sweep() -> None:
    """Remove the drawers' folders of warm graders that were killed before they could (a check interrupted)."""
    from grader.sandbox.limits import alive

    for path in glob.glob(os.path.join(tempfile.gettempdir(), "agstate-warm-*-*")):
        owner = os.path.basename(path).split("-")[2]
        try:
            mine = os.stat(path).st_uid == os.getuid()
        except OSError:
            continue
        if mine and owner.isdigit() and not alive(int(owner)):
            shutil.rmtree(path, ignore_errors=True)


class _Drawer:
    """A fork of the warm grader, at the lowest priority, drawing a seed's examples and handing each task's over."""

    def __init__(self, seed: int, examples: int, task_ids: list[str]):
        from grader.engine import bank
        from grader.engine import predraw as drawing

        # Each task's examples go in a file of this folder; the pipe only names it, so the drawer never waits
        # for the warm grader to read (it reads while idle, and before each check).
        self._folder = tempfile.TemporaryDirectory(prefix=f"agstate-warm-{os.getpid()}-")  # named after its owner
        readable, writable = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(readable)
            try:
                die_with_parent()  # it dies with the warm grader
                os.nice(19)
                quiet = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1):  # the kernel's pipes are the warm grader's to answer: their ends are not kept here
                    os.dup2(quiet, fd)

                def hand_over(task_id: str) -> None:
                    path = os.path.join(self._folder.name, f"{task_id}.json")
                    with open(path, "wb") as handle:
                        handle.write(bank.export_json())
                    os.write(writable, path.encode() + b"\n")

                drawing.draw_ahead(task_ids, seed, examples, after_task=hand_over)
            finally:
                os._exit(0)
        os.close(writable)
        self.pipe, self._pending = readable, b""

    def collect(self) -> None:
        """Merge whatever the drawer has handed over so far (never waits)."""
        from grader.engine import bank

        while self.pipe is not None and select.select([self.pipe], [], [], 0)[0]:
            chunk = os.read(self.pipe, 1 << 16)
            if not chunk:  # done (or gone): nothing more will come
                os.close(self.pipe)
                self.pipe = None
                os.waitpid(self.pid, 0)
            self._pending += chunk
        *paths, self._pending = self._pending.split(b"\n")
        for path in paths:
            with open(path, "rb") as handle:
                bank.merge_json(handle.read())
            os.unlink(path)

    def stop(self) -> None:
        if self.pipe is not None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            os.close(self.pipe)
            self.pipe = None
        self._folder.cleanup()

    def close_in_fork(self) -> None:
        if self.pipe is not None:
            os.close(self.pipe)


class _Readiness:
    """The warm grader's first line, ``{"ready": true}``, written once its zygote takes requests.

    Until then check() says "starting the grader…". Requests are taken
    before: the first one's fork plans, stages and draws while the zygote
    still imports LangGraph, and its learner process starts as soon as it can.
    """

    def __init__(self, zygote, replies):
        self.zygote, self.replies, self.said = zygote, replies, False

    def watched(self) -> list:
        return [] if self.said else [self.zygote]

    def say(self) -> None:
        if not self.said:
            self.zygote.wait_ready()  # (a zygote that died is the grade's to report, as the grader's failure)
            self.replies.write(json.dumps({"ready": True}) + "\n")
            self.replies.flush()
            self.said = True


def _grade(args: list[str], drawer: _Drawer | None, readiness: _Readiness) -> dict:
    """``agstate-grade args`` in a fork of this process: its exit status and what it printed; the banks it drew kept."""
    from grader.engine import bank

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as banks:
        pid = os.fork()
        if pid == 0:  # the fork: its stdout and stderr are the two files, then the CLI as a cold run has it
            code = 2
            try:
                if drawer is not None:
                    drawer.close_in_fork()
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                from grader import cli

                code = cli.main(args)
                banks.write(bank.export_json())
            except BaseException as exc:  # whatever happens, the kernel gets an answer
                print(f"agstate-grade: the warm grader failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                banks.flush()
                os._exit(code if isinstance(code, int) else 2)
        readiness.say()
        _, status = os.waitpid(pid, 0)
        for handle in (out, err, banks):
            handle.seek(0)
        code = os.waitstatus_to_exitcode(status)
        try:
            bank.merge_json(banks.read())
        except ValueError:
            pass  # a fork that died before it wrote them: the next draws them again
        return {"returncode": code, "stdout": out.read().decode(errors="replace"), "stderr": err.read().decode(errors="replace")}


def _lines(fd: int, drawer: "_Drawer | None", readiness: _Readiness):
    """The request lines read from ``fd``, until it ends; while none comes, the drawer's examples are merged and
    readiness is said."""
    pending = b""
    while True:
        while b"\n" not in pending:
            drawing = [drawer.pipe] if drawer is not None and drawer.pipe is not None else []
            ready = select.select([fd, *drawing, *readiness.watched()], [], [])[0]
            if fd not in ready:
                if drawing and drawing[0] in ready:
                    drawer.collect()  # merged now, while the learner reads, not when the next check comes
                if readiness.watched() and readiness.zygote in ready:
                    readiness.say()
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        yield line


def serve(requests, replies, seed: int | None = None, draw_ahead: bool = True) -> None:
    """Answer each request line of ``requests`` (a file with a descriptor) with one line on ``replies``, until it ends.

    ``seed``: the kernel's (default: a fresh one); ``draw_ahead``: start the drawer.
    """
    from grader import caches
    from grader.sandbox import zygote

    caches.keep_hypothesis_out_of_the_workspace()
    _sweep()
    zygote.shared()  # first: the zygote imports LangGraph while this process imports the grader
    from grader import cli  # noqa: F401 - imported once, here: every fork starts with them
    from grader.engine import DEFAULT_EXAMPLES
    from grader.engine.batch import grade_many  # noqa: F401

    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    drawer = _Drawer(seed, DEFAULT_EXAMPLES, tasks_in_order(os.environ.get("JPY_SESSION_NAME"))) if draw_ahead else None
    readiness = _Readiness(zygote.shared(), replies)
    try:
        for line in _lines(requests.fileno(), drawer, readiness):
            try:
                args = json.loads(line)["args"]
                if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
                    raise ValueError("args must be a list of strings")
            except (ValueError, KeyError, TypeError) as exc:
                readiness.say()
                reply = {"returncode": 2, "stdout": "", "stderr": f"agstate-grade: a bad request to the warm grader: {exc}"}
            else:
                if drawer is not None:
                    drawer.collect()
                reply = _grade(args if "--seed" in args else [*args, "--seed", str(seed)], drawer, readiness)
            replies.write(json.dumps(reply) + "\n")
            replies.flush()
    finally:
        if drawer is not None:
            drawer.stop()
        zygote.close_shared()


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout)
