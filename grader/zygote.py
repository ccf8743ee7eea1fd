"""The clean process every learner process is forked from (``python -m grader.zygote``).

A fresh interpreter, started by the grading side before it reads anything
of a batch, with a minimal environment and a fixed hash seed (a set's order
is the same in every learner process and on every run). It imports what
learner processes need — LangGraph, pydantic, every part's probes — and
then only forks: it never sees a report, a batch plan, an expected answer
or a submission's files, so a learner that walks ``gc.get_objects()`` finds
nothing but its own task's request. Heavy imports are paid once per batch.

Protocol: one SOCK_SEQPACKET socket; each message is a task request (JSON:
the staged submission, the module, the limits, sandbox or not) with three
file descriptors: the learner's request/reply channel, its output pipe and
the keeper's control socket (see ``grader.keeper``). The zygote forks a
keeper per message and forgets it. It exits once every grading process has
closed its end, after its keepers are done.
"""

import gc
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from grader import cgroups

__all__ = ["Zygote", "shared", "PRELOAD"]

# Imported before the first fork, so a learner process pays nothing for them.
PRELOAD = ["langgraph.graph", "langgraph.checkpoint.memory", "pydantic", "typing_extensions", "multiprocessing.connection",
           "sqlite3", "grader.child", "grader.keeper"]
_MAX_REQUEST = 1 << 16


class Zygote:
    """The grading side's handle: start the zygote, ask it for learner processes."""

    def __init__(self, label: str = ""):
        self._mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {"PATH": f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0",
               "PYTHONDONTWRITEBYTECODE": "1", "HOME": "/nonexistent", "TMPDIR": _host_tmp()}
        if cgroups.DISABLE in os.environ:  # the one grader setting the keepers read
            env[cgroups.DISABLE] = os.environ[cgroups.DISABLE]
        # -s: no user site; -P: the working directory is not on sys.path (a course folder's own
        # grader/ cannot stand in for this one).
        self._process = subprocess.Popen(
            [sys.executable, "-s", "-P", "-m", "grader.zygote", str(theirs.fileno()), label or f"agstate-batch-{os.getpid()}"],
            pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, cwd="/")
        theirs.close()
        self._owner = os.getpid()
        self._lock = threading.Lock()

    def spawn(self, request: dict, fds: list[int]) -> None:
        """Ask for a keeper and its learner process; ``fds``: channel, output pipe, control socket."""
        with self._lock:
            socket.send_fds(self._mine, [json.dumps(request).encode()], fds)

    def close(self, timeout: float = 30.0) -> None:
        """Stop taking requests; wait until every keeper has finished (only in the process that started it)."""
        if os.getpid() != self._owner or self._mine.fileno() < 0:
            return
        self._mine.close()
        try:
            self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def _host_tmp() -> str:
    import tempfile

    return tempfile.gettempdir()


_SHARED: Zygote | None = None


def shared() -> Zygote:
    """This process's zygote, started on first use (forked workers share their parent's)."""
    global _SHARED
    if _SHARED is None:
        _SHARED = Zygote()
    return _SHARED


def close_shared() -> None:
    global _SHARED
    if _SHARED is not None:
        _SHARED.close()
        _SHARED = None


def _serve(sock: socket.socket) -> None:
    from grader import keeper  # imported already (PRELOAD); named here for the reader

    keepers = set()
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(sock, _MAX_REQUEST, 3)
        except InterruptedError:
            continue
        _reap(keepers)
        if not message:  # every grading process has closed its end
            break
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            sock.close()
            keeper.keep(message, fds)  # never returns
        keepers.add(pid)
        for fd in fds:
            os.close(fd)
        del message
    while keepers:  # they end as soon as their grading processes hang up
        _reap(keepers, block=True)


def _reap(keepers: set[int], block: bool = False) -> None:
    for pid in list(keepers):
        try:
            done, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            keepers.discard(pid)
        if block:
            return


def _warm_up() -> None:
    """Run a tiny graph once, so LangGraph's lazy imports happen here and not in every learner process."""
    from typing import Annotated
    import operator

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from typing_extensions import TypedDict

    class Warm(TypedDict):
        items: Annotated[list, operator.add]

    builder = StateGraph(Warm)
    builder.add_node("a", lambda state: {"items": [1]})
    builder.add_node("b", lambda state: {"items": [2]})
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    graph = builder.compile(checkpointer=InMemorySaver())
    graph.invoke({"items": []}, {"configurable": {"thread_id": "warm"}})
    graph.get_state({"configurable": {"thread_id": "warm"}})


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grading side's to handle
    sock = socket.socket(fileno=int(argv[1]))
    import importlib

    for module in PRELOAD:
        importlib.import_module(module)
    from grader import cgroups, probes

    probes.load()
    found = cgroups.detected()
    if isinstance(found, cgroups.Cgroups):
        found.sweep()
    _warm_up()
    gc.collect()  # nothing of the warm-up's run stays for a learner to find
    gc.freeze()  # what is left is never scanned again: a collection in a child would copy every page it touched
    deadline = time.monotonic() + 5
    while threading.active_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.01)  # a thread pool of the warm-up winding down: forks must come from one thread
    _serve(sock)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
