"""The other end of a warm grader (``grader.warm.server``): started, asked, stopped; no engine in this process.

``WarmGrader`` drives one from an asyncio loop (the grading service);
``InThread`` drives one from ordinary threads (a Dask worker's tasks), in a
loop of its own. A grading cancelled here (a check over its limit, a
student gone) is stopped there with all it started, and the call returns
only once it is gone. A warm grader that died is started again by the next
grading; the gradings it held get ``WarmGraderGone``.
"""

import asyncio
import itertools
import json
import sys
import threading
from collections.abc import Callable

__all__ = ["WarmGrader", "WarmGraderGone", "InThread", "Stopped"]

_LONGEST_ANSWER = 1 << 30  # a shard's reports in one line


class WarmGraderGone(RuntimeError):
    """The warm grader ended before it answered: the grader failed, not the submission."""


class Stopped(Exception):
    """A grading stopped on its requester's word (``InThread.grade``'s ``stop``), with what it started."""


class WarmGrader:
    """A warm grader process with ``environment`` (default: this one's), its gradings in flight by id."""

    def __init__(self, environment: dict[str, str] | None = None):
        self.environment = environment
        self._process: asyncio.subprocess.Process | None = None
        self._ready: asyncio.Future | None = None
        self._waiting: dict[int, asyncio.Future] = {}
        self._ids = itertools.count(1)
        self._starting = asyncio.Lock()

    async def start(self) -> None:
        """Start it unless it runs; return once its zygote takes requests (requests sent before wait in its pipe)."""
        async with self._starting:
            if self._process is None or self._process.returncode is not None:
                self._process = await asyncio.create_subprocess_exec(
                    sys.executable, "-I", "-m", "grader.warm.server", stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE, env=self.environment, cwd="/", limit=_LONGEST_ANSWER)
                self._ready = asyncio.get_running_loop().create_future()
                asyncio.ensure_future(self._read(self._process, self._ready))
            ready = self._ready
        await asyncio.shield(ready)

    async def grade(self, request: dict) -> dict:
        """``request`` (``{"check": [...], "tmp": ...}`` or ``{"batch": {...}, "tmp": ...}``) graded: its answer.

        Cancelled, the grading is stopped there first, with all it started.
        """
        await self.start()
        request_id = next(self._ids)
        answer = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = answer
        try:
            self._send({**request, "id": request_id})
            return await asyncio.shield(answer)
        except asyncio.CancelledError:
            if not answer.done():
                self._send({"id": request_id, "cancel": True})
                try:
                    await answer  # it comes once the fork is gone
                except WarmGraderGone:
                    pass
            raise
        finally:
            self._waiting.pop(request_id, None)

    def _send(self, message: dict) -> None:
        process = self._process
        if process is None or process.returncode is not None or process.stdin.is_closing():
            raise WarmGraderGone("the warm grader has ended")
        process.stdin.write(json.dumps(message).encode() + b"\n")

    async def _read(self, process, ready: asyncio.Future) -> None:
        try:
            while line := await process.stdout.readline():
                message = json.loads(line)
                if message.get("ready") and not ready.done():
                    ready.set_result(True)
                elif message.get("id") in self._waiting and not self._waiting[message["id"]].done():
                    self._waiting[message["id"]].set_result(message)
        except (ValueError, asyncio.LimitOverrunError, ConnectionError):
            process.kill()
        gone = WarmGraderGone(f"the warm grader ended (exit {await process.wait()})")
        if not ready.done():
            ready.set_exception(gone)
        for waiting in list(self._waiting.values()):
            if not waiting.done():
                waiting.set_exception(gone)

    async def close(self) -> None:
        """End it (its stdin closed: it stops what still runs) and wait for it."""
        process, self._process = self._process, None
        if process is not None and process.returncode is None:
            process.stdin.close()
            await process.wait()


class InThread:
    """A ``WarmGrader`` for callers on other threads: its own event loop runs in a thread of its own."""

    def __init__(self, environment: dict[str, str] | None = None):
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="agstate-warm-grader", daemon=True)
        self._thread.start()
        self.grader = asyncio.run_coroutine_threadsafe(self._make(environment), self.loop).result()

    @staticmethod
    async def _make(environment):
        return WarmGrader(environment)

    def start(self) -> None:
        asyncio.run_coroutine_threadsafe(self.grader.start(), self.loop).result()

    def grade(self, request: dict, stop: Callable[[], bool] = lambda: False, poll: float = 0.5) -> dict:
        """``WarmGrader.grade`` from this thread; ``stop()``, asked every ``poll`` seconds, stops it (``Stopped``)."""
        done, held = threading.Event(), {}

        def begin():
            held["task"] = asyncio.ensure_future(self.grader.grade(request))
            held["task"].add_done_callback(lambda _: done.set())

        self.loop.call_soon_threadsafe(begin)
        while not done.wait(poll):
            if stop():
                self.loop.call_soon_threadsafe(lambda: held["task"].cancel())  # after begin: the loop keeps order
                done.wait()
                raise Stopped()
        return held["task"].result()

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.grader.close(), self.loop).result()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
