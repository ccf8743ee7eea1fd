"""The grading side of the boundary: start a learner child, send probes, survive anything.

Each child is forked from the grading process after it has imported
LangGraph and pydantic once (``child.PRELOAD``), so a child costs a fork, not
an interpreter start. It runs in its own process group and is killed with
that whole group when the session ends or a call runs out of time. (Not
forkserver/spawn: those re-run the caller's ``__main__`` in every child.)
"""

import importlib
import multiprocessing
import os
import signal
import select
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from grader import child, containment, wire

__all__ = ["Session", "Raised", "ChildFailed", "LoadFailed", "MissingName"]

_OUTPUT_TAIL_BYTES = 2000
_OUTPUT_TAIL_CHARS = 300
_context = None


def mp_context():
    global _context
    if _context is None:
        for module in child.PRELOAD:
            importlib.import_module(module)
        _context = multiprocessing.get_context("fork")
    return _context


@dataclass
class Raised:
    """The learner's code raised: facts from ``child.describe_exception``."""

    info: dict

    @property
    def type(self) -> str:
        return self.info["type"]

    def is_a(self, name: str) -> bool:
        return name in self.info.get("mro", [])

    def sentence(self) -> str:
        text = f"{self.info['type']}: {self.info['message']}" if self.info["message"] else self.info["type"]
        where = self.info.get("where")
        if where:
            text += f" (at {where['file']}, line {where['line']}"
            text += f": {where['code']})" if where.get("code") else ")"
        return text


class ChildFailed(Exception):
    """The child died or ran out of time; ``status`` is ``crashed`` or ``timeout``."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class LoadFailed(Exception):
    """The learner's module could not be imported."""

    def __init__(self, raised: Raised):
        super().__init__(raised.sentence())
        self.raised = raised


class MissingName(Exception):
    """The learner's module lacks a name a task needs."""


def _outcome(reply: dict):
    if "raised" in reply:
        return Raised(reply["raised"])
    if "missing" in reply:
        return MissingName(reply["missing"])
    if "grader_error" in reply:
        raise RuntimeError(reply["grader_error"])
    return wire.decode(reply["value"])


class _OutputDrain(threading.Thread):
    """Reads the child's stdout/stderr as fast as it writes, keeping only the tail."""

    def __init__(self, fd: int):
        super().__init__(daemon=True)
        self.fd, self.tail, self._stopping = fd, bytearray(), threading.Event()

    def run(self) -> None:
        try:
            while not self._stopping.is_set():
                if not select.select([self.fd], [], [], 0.1)[0]:
                    continue
                chunk = os.read(self.fd, 1 << 16)
                if not chunk:
                    return
                self.tail += chunk
                del self.tail[:-_OUTPUT_TAIL_BYTES]
        finally:
            os.close(self.fd)  # closed here, by the reader, so the fd number is never reused under it

    def stop(self) -> None:
        self._stopping.set()


class Session:
    """One live child with the learner's module loaded; restarted after a crash.

    ``sweep``: this process is a subreaper, so after the child is killed every
    process the learner detached is found and killed too.
    """

    def __init__(self, submission: Path, module: str, limits: containment.Limits, load_timeout: float = 10.0,
                 sweep: bool = False):
        self.submission = Path(submission).resolve()
        self.module = module
        self.limits = limits
        self.load_timeout = load_timeout
        self.sweep = sweep
        self._process = None
        self._conn = None
        self._drain = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _start(self) -> None:
        ctx = mp_context()
        parent_end, child_end = ctx.Pipe()
        output_r, output_w = os.pipe()
        self._process = ctx.Process(
            target=child.serve, args=(child_end, str(self.submission), self.module, output_w, self.limits), daemon=True
        )
        self._process.start()
        child_end.close()
        os.close(output_w)
        self._drain = _OutputDrain(output_r)
        self._drain.start()
        self._conn = parent_end
        reply = self._receive(self.load_timeout, "importing your module")
        if "load_error" in reply:
            error = reply["load_error"]
            self.close()
            raise LoadFailed(Raised(error))

    def probe(self, name: str, *args, timeout: float):
        """Run probe ``name`` in the child; its value, a ``Raised`` or a ``MissingName``."""
        return _outcome(self._ask({"probe": name, "args": wire.encode(list(args))}, timeout, f"running {name}"))

    def batch(self, requests: list[tuple[str, list]], timeout: float) -> list:
        """Run many probes in one round trip; each outcome is a value, a ``Raised`` or a ``MissingName``."""
        message = {"batch": [[name, wire.encode(args)] for name, args in requests]}
        reply = self._ask(message, timeout, f"running {len(requests)} checks")
        return [_outcome(item) for item in reply["replies"]]

    def _ask(self, message: dict, timeout: float, doing: str) -> dict:
        deadline = time.monotonic() + timeout
        if self._process is None:
            self._start()
        try:
            self._conn.send_bytes(wire.dumps(message))
        except OSError:  # the child is gone already: say how it ended
            return self._receive(0, doing)
        return self._receive(max(0.0, deadline - time.monotonic()), doing)

    def _receive(self, timeout: float, doing: str) -> dict:
        if not self._conn.poll(timeout):
            self.close()
            raise ChildFailed("timeout", f"your code took longer than {timeout:.1f} s while {doing}")
        try:
            return wire.loads(self._conn.recv_bytes(wire.MAX_MESSAGE_BYTES))
        except (EOFError, OSError):
            code = self._wait_exit()
            if self._drain is not None:
                self._drain.join(0.2)  # let the reader catch the last words before the crash
            tail = self.output_tail()
            self.close()
            raise ChildFailed("crashed", f"your code ended the process while {doing} ({code})" + (f"; its last output: {tail}" if tail else "")) from None
        except ValueError as exc:
            self.close()
            raise ChildFailed("crashed", f"the process sent an unreadable answer while {doing} ({exc})") from None

    def _wait_exit(self) -> str:
        self._process.join(1.0)
        code = self._process.exitcode
        if code is None:
            return "it stopped answering"
        if code < 0:
            return f"killed by signal {signal.Signals(-code).name}"
        return f"exit status {code}"

    def output_tail(self) -> str:
        """The last lines the learner's code printed, for feedback."""
        if self._drain is None:
            return ""
        text = bytes(self._drain.tail).decode(errors="replace")
        # Printable text only: the report is read by people and parsed as JSON.
        text = "".join(c if c.isprintable() or c in "\n\t" else "?" for c in text)
        return text.strip()[-_OUTPUT_TAIL_CHARS:]

    def close(self) -> None:
        if self._process is not None and self._process.pid is not None:
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass  # no group yet: the child died before its setsid()
            self._process.kill()
            self._process.join(5)
        self._process = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._drain is not None:
            self._drain.stop()
            self._drain = None
        if self.sweep:
            containment.kill_descendants()
