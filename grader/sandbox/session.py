"""The grading side of the boundary: a learner process per task, probes sent to it, anything survived.

A ``Session`` asks the zygote (``grader.sandbox.zygote``) for a learner process in
a fresh sandbox (``grader.sandbox.keeper``), talks to it over a private channel,
drains and caps its output, and learns from the keeper how it ended. The
learner process is restarted, in a new sandbox, after a crash or a time-out.
Closing the session ends the sandbox and everything in it before it returns.
"""

import json
import os
import select
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import NoReturn

from grader import wire
from grader.i18n import _
from grader.sandbox import allowance, bubblewrap, zygote
from grader.sandbox.allowance import Allowance
from grader.sandbox.limits import Limits
from grader.sandbox.reach import integrity
from grader.wire import Raised

__all__ = ["Session", "Raised", "ChildFailed", "LoadFailed", "MissingName", "GRADER_ERROR", "REPLY_BYTES", "TASK_REPLY_BYTES"]

_OUTPUT_TAIL_BYTES = 2000
# What the learner's replies may cost the grading side, per reply and per task: each is read, decoded and kept (a
# task's answers are shared by its rules) in the grading process, whatever the learner's own memory limit. Measured on
# the reference, the whole lab at 80 examples: 0.96 MB for the largest reply, 14 MB for all of them together.
REPLY_BYTES = 8 * 2**20
TASK_REPLY_BYTES = 64 * 2**20
_OUTPUT_TAIL_CHARS = 300
_TEARDOWN_TIMEOUT = 10.0


# The status of a learner process the grader itself could not start (its sandbox, its zygote): the report's status
# of the same name (grader.reports.report.GRADER_ERROR, which the engine puts in its words; a test holds them equal).
GRADER_ERROR = "grader_error"


class ChildFailed(Exception):
    """The learner process died, ran out of time, or could not be made: ``status`` crashed, timeout or
    ``GRADER_ERROR``."""

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


def _outcome(reply: dict, resolve=None):
    if "missing" in reply:  # the learner's process's English, said here in the learner's language
        return MissingName(wire.translated(reply.get("said"), reply["missing"]))
    if "grader_error" in reply:
        # Said by the learner's process, which the learner's code may have rewritten: never the grader's failure.
        raise ChildFailed("crashed", _("the process running your code answered a check with an error of its own "
                                       "({error})").format(error=str(reply['grader_error'])[:200]))
    if "value" not in reply:  # a frame the learner's code wrote on the grader's socket itself, out of turn
        raise ChildFailed("crashed", _("the process running your code answered a check with something else than its "
                                       "result (did your code write to the grader's socket?)"))
    return wire.decode(reply["value"], resolve)


class _OutputDrain(threading.Thread):
    """Reads the learner's stdout/stderr as fast as it writes, keeping only the tail."""

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
    """One live learner process with the learner's module loaded; restarted after a crash.

    ``submission`` is the task's private copy (``grader.sandbox.staging``); ``sandbox``
    False runs the learner without bubblewrap (``--no-sandbox``).
    """

    def __init__(self, submission: Path, module: str, limits: Limits, load_timeout: float = 10.0,
                 sandbox: bool = True, shared: Path | None = None):
        self.submission = Path(submission).resolve()
        self.module = module
        self.limits = limits
        self.load_timeout = load_timeout
        self.sandbox = sandbox
        # The task's shared folder (grader.sandbox.shared), if it has one: on the host, and as the learner sees it.
        self.shared = shared
        self.learner_shared = (bubblewrap.SHARED if sandbox else str(shared)) if shared is not None else None
        self._siblings: list[Session] = []
        self._conn = None
        self._control = None
        self._drain = None
        # What the learner's process cost, for grader.engine.costs: starting it (its sandbox included), importing the
        # module and each probe, as that process measured them, and the wall time spent waiting for its replies.
        self.started = self.imported = self.waited = 0.0
        self.spent = Counter()
        self.received = 0  # bytes of the learner's replies in this task (TASK_REPLY_BYTES)
        self.asked: set[str] = set()  # every probe and operation asked of this task's learner processes (its integrity)
        self.generation = 0  # counts the learner processes started: what one held, the next does not
        self._pending_sent = False  # whether the probe ``start`` sent reached the learner's process
        self._early = None  # the started probe's reply, read by ``replied`` before ``finish`` asks for it
        self._importing = False  # a process ``prestart`` made, whose word that the import is done is still to come
        self._learner = None  # the running learner process's pid, as its keeper said it (grader.sandbox.allowance)
        self._kept: list[dict] = []  # what the keeper said that was read before its time (an early end)
        self._lock = threading.RLock()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        self.close_siblings()

    def sibling(self, number: int) -> "Session":
        """This task's ``number``-th other learner process (a racing writer): the same module, limits and shared folder.

        Started at its first probe, kept until ``close_siblings`` or the end of this session.
        """
        while len(self._siblings) <= number:
            self._siblings.append(Session(self.submission, self.module, self.limits, self.load_timeout, self.sandbox,
                                          self.shared))
        return self._siblings[number]

    def asked_of_all(self) -> set[str]:
        """What this task asked of its learner processes, its siblings' included."""
        return self.asked.union(*(sibling.asked for sibling in self._siblings))

    def close_siblings(self) -> None:
        """End the other learner processes: each holds a uid of the zygote's few while it runs."""
        for sibling in self._siblings:
            sibling.close()

    def prestart(self) -> None:
        """Have the next learner process made now, its sandbox built and the module imported while the grading side
        goes on; the next probe waits for it (and says, as ever, if the import failed). A racing or killed writer's
        process, made ahead: the zygote builds it while the round before it runs."""
        with self._lock:
            if self._conn is None:
                self._start()

    def _start(self) -> None:
        """Ask for the next learner process; its word that the module is imported is awaited at its first request."""
        self.generation += 1
        began = time.perf_counter()
        try:
            self._spawn()
        finally:
            self.started += time.perf_counter() - began
        self._importing = True

    def _spawn(self) -> None:
        mine, theirs = socket.socketpair()
        output_r, output_w = os.pipe()
        control, control_theirs = socket.socketpair()
        request = {"sandbox": self.sandbox, "hook": integrity() != "off", "module": self.module, "limits": self.limits.as_dict(),
                   "submission": str(self.submission),
                   "learner_submission": bubblewrap.SUBMISSION if self.sandbox else str(self.submission),
                   "shared": str(self.shared) if self.shared is not None and self.sandbox else None}
        try:
            zygote.shared().spawn(request, [theirs.fileno(), output_w, control_theirs.fileno()])
        except OSError as exc:
            for end in (mine, control):  # theirs, control_theirs and output_w: closed below, whatever happened
                end.close()
            os.close(output_r)
            raise ChildFailed(GRADER_ERROR, _("its zygote, which starts your code's process, is gone ({error})").format(
                error=exc)) from None
        finally:
            theirs.close()
            control_theirs.close()
            os.close(output_w)
        self._conn = Connection(mine.detach())
        self._control = control
        self._drain = _OutputDrain(output_r)
        self._drain.start()

    def _await_import(self) -> None:
        self._importing = False
        began = time.perf_counter()
        try:
            reply = self._receive(self.load_timeout, lambda: _("importing your module"))
        finally:
            self.started += time.perf_counter() - began
        if "load_error" in reply:
            error = reply["load_error"]
            self.close()
            raise LoadFailed(Raised.decode(error))
        self.imported += _seconds(reply)
        self._watch_learner()

    def _watch_learner(self) -> None:
        """Have the learner process's waits for a core given back to its calls' allowances: its keeper says its pid
        first, as it forks it (the learner's own word is never asked)."""
        said = _parse(_read_line(self._control, 2.0))
        if type(said.get("learner")) is int:
            self._learner = said["learner"]
            allowance.watch(self._learner)
        elif said:
            self._kept.append(said)  # the keeper's last word, come first: how the process ended

    def probe(self, name: str, *args, timeout: float | Allowance, doing: Callable[[], str] | None = None, keep=None, resolve=None,
              serve: Callable[[dict], dict] | None = None):
        """Run probe ``name`` in the learner's process; its value, a ``Raised`` or a ``MissingName``.

        ``doing()``: what the learner's code was doing, as a failure names it
        ("running merge_sources([], ['a'])"); asked only then. ``keep`` and
        ``resolve``: how the grading side's objects cross and the learner's
        come back (``grader.wire.encode``, ``decode``). ``serve``: the answer to
        a callback the learner's code makes before the reply (``grader.engine.remote``).
        """
        self.asked.add(name)
        reply = self._ask({"probe": name, "args": wire.encode(list(args), keep=keep)}, timeout,
                          doing or (lambda: _("running {call}").format(call=name)), serve)
        self.spent[name] += _seconds(reply)
        return _outcome(reply, resolve)

    def batch(self, requests: list[tuple[str, list]], timeout: float | Allowance, keep=None, resolve=None, serve=None) -> list:
        """Run many probes in one round trip; each outcome is a value, a ``Raised`` or a ``MissingName`` (``keep``,
        ``resolve``, ``serve``: as ``probe``'s)."""
        self.asked.update(name for name, _args in requests)
        message = {"batch": [[name, wire.encode(args, keep=keep)] for name, args in requests]}
        reply = self._ask(message, timeout, lambda: _("running {count} checks").format(count=len(requests)), serve)
        if not isinstance(reply.get("replies"), list) or len(reply["replies"]) != len(requests):
            self.close()
            raise ChildFailed("crashed", _("the process running your code answered {count} checks with something "
                                           "else").format(count=len(requests)))
        for (name, _args), item in zip(requests, reply["replies"]):
            self.spent[name] += _seconds(item)
        return [_outcome(item, resolve) for item in reply["replies"]]

    def _ask(self, message: dict, timeout: float | Allowance, doing: Callable[[], str], serve=None) -> dict:
        allowed = Allowance.of(timeout)  # a scenario's calls share one allowance; a probe's is its own
        # One request and its reply at a time: LangGraph may run a graph's parallel nodes on threads of its own.
        with self._lock:
            began = time.perf_counter()
            try:
                if not self._request(message):  # the learner is gone already: say how it ended
                    return self._receive(0, doing)
                return self._reply(allowed, doing, serve)
            finally:
                self.waited += time.perf_counter() - began

    def _request(self, message: dict) -> bool:
        if self._conn is None:
            self._start()
        if self._importing:
            self._await_import()
        try:
            self._conn.send_bytes(wire.dumps(message))
            return True
        except OSError:
            return False

    def _reply(self, allowed: Allowance, doing: Callable[[], str], serve=None) -> dict:
        """The reply to the request sent, serving the learner's callbacks until it comes."""
        while True:
            reply = self._receive(allowed, doing)
            if not (isinstance(reply, dict) and "callback" in reply):
                return reply
            if serve is None:  # nothing was lent to the learner's code: it cannot call back
                self.close()
                raise ChildFailed("crashed", _("the process running your code made a call the grader did not offer while "
                                               "{doing}").format(doing=doing()))
            self._send(serve(reply), doing)

    # -- a probe left running: a racing writer's append, a writer killed mid-append --------------------------
    def start(self, name: str, *args, keep=None) -> None:
        """Send probe ``name`` and return at once; ``finish`` reads its reply (or ``close`` kills it where it is)."""
        self._early = None
        self.asked.add(name)
        self._pending_sent = self._request({"probe": name, "args": wire.encode(list(args), keep=keep)})

    def replied(self, timeout: float, doing: Callable[[], str] = lambda: "running", serve=None) -> bool:
        """Whether the started probe's reply (or the process's end) has come, waiting up to ``timeout`` seconds and
        serving the learner's callbacks meanwhile (``serve``, as ``probe``'s)."""
        if not self._pending_sent or self._conn is None or self._early is not None:
            return True
        deadline = time.monotonic() + timeout
        while self._conn.poll(max(0.0, deadline - time.monotonic())):
            reply = self._receive(0, doing)
            if not (isinstance(reply, dict) and "callback" in reply and serve is not None):
                self._early = reply  # the reply itself (or a callback nothing serves: finish says so)
                return True
            self._send(serve(reply), doing)
        return False

    def finish(self, name: str, timeout: float | Allowance, doing: Callable[[], str], resolve=None, serve=None):
        """The started probe's value, a ``Raised`` or a ``MissingName``, as ``probe`` gives it."""
        began = time.perf_counter()
        try:
            if self._early is not None:
                reply, self._early = self._early, None
                if isinstance(reply, dict) and "callback" in reply:  # a callback ``replied`` had nothing to serve
                    self.close()
                    raise ChildFailed("crashed", _("the process running your code made a call the grader did not offer "
                                                   "while {doing}").format(doing=doing()))
            elif self._pending_sent:
                reply = self._reply(Allowance.of(timeout), doing, serve)
            else:
                reply = self._receive(0, doing)
        finally:
            self.waited += time.perf_counter() - began
        self.spent[name] += _seconds(reply)
        return _outcome(reply, resolve)

    def _send(self, message: dict, doing: Callable[[], str]) -> None:
        try:
            self._conn.send_bytes(wire.dumps(message))
        except OSError:
            self._gone(doing)

    def _receive(self, timeout: float | Allowance, doing: Callable[[], str]) -> dict:
        """The child's answer; ``doing()`` (what it was asked) is only composed for a failure's message."""
        if not self._came(timeout):
            if isinstance(timeout, Allowance):
                timeout = timeout.seconds
            ended = self.close()
            # Thrashing at the memory limit looks like slowness: say so when the keeper saw it.
            said = _("your code took longer than {seconds} s while {doing}; the task's processes had reached their memory "
                     "limit") if ended.get("memory_limit") else _("your code took longer than {seconds} s while {doing}")
            raise ChildFailed("timeout", said.format(seconds=f"{timeout:.1f}", doing=doing()))
        try:
            raw = self._conn.recv_bytes(REPLY_BYTES)
        except OSError as exc:
            if str(exc) == "bad message length":  # longer than REPLY_BYTES: never read, so never held here
                self.close()
                raise ChildFailed("crashed", _("your code answered the grader with more than {megabytes} MB while {doing}; no "
                                               "answer of the lab is near that size").format(
                                                   megabytes=REPLY_BYTES // 2**20, doing=doing())) from None
            self._gone(doing)
        except EOFError:
            self._gone(doing)
        self.received += len(raw)
        if self.received > TASK_REPLY_BYTES:
            self.close()
            raise ChildFailed("crashed", _("your code's answers to the grader came to more than {megabytes} MB in this "
                                           "task, while {doing}").format(megabytes=TASK_REPLY_BYTES // 2**20, doing=doing()))
        try:
            reply = wire.loads(raw)
        except ValueError as exc:
            self.close()
            raise ChildFailed("crashed", _("the process sent an unreadable answer while {doing} ({error})").format(
                doing=doing(), error=exc)) from None
        if not isinstance(reply, dict):  # every message of the call server is a dict: this one is the learner's own
            self.close()
            raise ChildFailed("crashed", _("the process sent something else than an answer while {doing}").format(
                doing=doing()))
        return reply

    def _came(self, timeout: float | Allowance) -> bool:
        """Whether a message came within ``timeout``: an allowance's wall time, then what it gives back."""
        if not isinstance(timeout, Allowance):
            return self._conn.poll(timeout)
        while not self._conn.poll(timeout.left()):
            if timeout.left() <= 0:
                return False
        return True

    def _gone(self, doing: Callable[[], str]) -> NoReturn:
        """The learner's process closed its end: say how it ended (the keeper's word) and with what last output."""
        ended = self._ended()
        if self._drain is not None:
            self._drain.join(0.2)  # let the reader catch the last words before the crash
        tail = self.output_tail()
        self.close()
        if "error" in ended:
            error = _("entering the sandbox failed: {error}").format(error=ended["error"]) if ended.get("entering") \
                else ended["error"]
            raise ChildFailed(GRADER_ERROR, _("it could not start your code's process ({error})").format(error=error)) from None
        said = _("your code ended the process while {doing} ({how}); its last output: {output}") if tail else \
            _("your code ended the process while {doing} ({how})")
        raise ChildFailed("crashed", said.format(doing=doing(), how=_how(ended, self.limits), output=tail)) from None

    def _ended(self) -> dict:
        """The keeper's word on how the learner's process ended (it says so once the process is gone)."""
        if self._kept:
            return self._kept.pop(0)
        while "learner" in (said := _parse(_read_line(self._control, 2.0))):  # its first word, the pid, not read yet
            pass
        return said

    @property
    def learner_pid(self) -> int | None:
        """The running learner process's pid, as its keeper said it (None before its module is imported)."""
        return self._learner

    @property
    def alive(self) -> bool:
        """Whether a learner process is running for this session (one is started at the next probe otherwise)."""
        return self._conn is not None

    def output_tail(self) -> str:
        """The last lines the learner's code printed, for feedback."""
        if self._drain is None:
            return ""
        text = bytes(self._drain.tail).decode(errors="replace")
        # Printable text only: the report is read by people and parsed as JSON.
        text = "".join(c if c.isprintable() or c in "\n\t" else "?" for c in text)
        return text.strip()[-_OUTPUT_TAIL_CHARS:]

    def close(self) -> dict:
        """End the learner's process and its sandbox; returns, once the keeper has cleaned up, its last word.

        The keeper kills first (SIGKILL to the sandbox), then the channel is
        closed: the learner's code never sees its channel end and runs
        nothing more (a finally that commits) before a kill a scenario stages.
        """
        last = self._kept.pop(0) if self._kept else {}
        if self._learner is not None:
            allowance.unwatch(self._learner)  # before it is ended: what it waited so far still counts
            self._learner = None
        if self._control is not None:
            try:
                self._control.shutdown(socket.SHUT_WR)  # the keeper's cue to stop
                deadline = time.monotonic() + _TEARDOWN_TIMEOUT
                while line := _read_line(self._control, max(0.0, deadline - time.monotonic())):
                    said = _parse(line)  # until EOF: the keeper closes it once everything is gone
                    last = last if "learner" in said else said  # its first word, the pid, is not how it ended
            except OSError:
                pass
            self._control.close()
            self._control = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._drain is not None:
            self._drain.stop()
            self._drain = None
        self._importing = False
        self._early = None
        self._kept.clear()
        return last


def _seconds(reply: dict) -> float:
    """The seconds a reply says the child spent (0 when it says nothing sensible: it is only a profile)."""
    spent = reply.get("t") if isinstance(reply, dict) else None
    return float(spent) if type(spent) in (int, float) and 0 <= spent < 1e6 else 0.0


def _parse(line: bytes) -> dict:
    try:
        found = json.loads(line) if line else {}
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _read_line(sock: socket.socket, timeout: float) -> bytes:
    """One line from ``sock`` (b"" at EOF or after ``timeout``)."""
    line = b""
    deadline = time.monotonic() + timeout
    while not line.endswith(b"\n"):
        if not select.select([sock], [], [], max(0.0, deadline - time.monotonic()))[0]:
            return line
        chunk = sock.recv(1)
        if not chunk:
            return line
        line += chunk
    return line


def _how(ended: dict, limits: Limits) -> str:
    if ended.get("signal"):
        text = _("killed by signal {signal}").format(signal=ended["signal"])
    elif ended.get("code") is not None:
        text = _("exit status {code}").format(code=ended["code"])
    else:
        text = _("it stopped answering")
    if ended.get("memory_limit"):
        text = _("{how}; the task's processes reached their memory limit of {megabytes} MB together").format(
            how=text, megabytes=limits.memory_bytes // 2**20)
    if ended.get("process_limit"):
        text = _("{how}; the task reached its limit of {processes} processes").format(how=text, processes=limits.processes)
    return text
