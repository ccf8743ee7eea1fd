"""The clean process every learner process is forked from (``python -m grader.sandbox.zygote``), and its keeper.

A fresh interpreter, started by the grading side before it reads anything
of a batch, with a minimal environment and a fixed hash seed (a set's order
is the same in every learner process and on every run). It imports what
learner processes need — LangGraph, pydantic, every part's probes — and
never sees a report, a batch plan, an expected answer or a submission's
files. Heavy imports are paid once per batch. Every learner is a fork of
it; the learner forgets the zygote's other running tasks before anything
else, so a learner that walks ``gc.get_objects()`` finds nothing but its
own task's request.

Protocol: one SOCK_SEQPACKET socket; each message is a task request (JSON:
the staged submission, the module, the limits, sandbox or not) with three
file descriptors: the learner's request/reply channel, its output pipe and
the task's control socket. The zygote's loop (``_serve``) starts each task
(``grader.sandbox.keeper.Task``), keeps it while it runs and ends it when the
learner ends or the grading side closes the control socket. It exits once
every grading process has closed its end and every task is over.
"""

import gc
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time

from grader.sandbox import bubblewrap, cgroups

__all__ = ["Zygote", "shared", "PRELOAD"]

# Imported before the first fork, so a learner process pays nothing for them.
PRELOAD = ["langgraph.graph", "langgraph.checkpoint.memory", "pydantic", "typing_extensions", "multiprocessing.connection",
           "sqlite3", "grader.child.serve", "grader.sandbox.keeper"]
_MAX_REQUEST = 1 << 16
_READY = b"ready"  # the zygote's one message to the grading side: it takes requests now (``Zygote.wait_ready``)


class Zygote:
    """The grading side's handle: start the zygote, ask it for learner processes."""

    def __init__(self, label: str = ""):
        self._mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {"PATH": f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0",
               "PYTHONDONTWRITEBYTECODE": "1", "HOME": "/nonexistent", "TMPDIR": _host_tmp()}
        if cgroups.DISABLE in os.environ:  # the one grader setting the keepers read
            env[cgroups.DISABLE] = os.environ[cgroups.DISABLE]
        env[bubblewrap.CHOICE] = bubblewrap.choice()
        # -s: no user site; -P: the working directory is not on sys.path (a course folder's own
        # grader/ cannot stand in for this one).
        self._process = subprocess.Popen(
            [sys.executable, "-s", "-P", "-m", "grader.sandbox.zygote", str(theirs.fileno()), label or f"agstate-batch-{os.getpid()}"],
            pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, cwd="/")
        theirs.close()
        self._owner = os.getpid()
        self._lock = threading.Lock()
        self._ready = False

    def fileno(self) -> int:
        """For ``select``: readable once the zygote has said it is ready (then ``wait_ready`` returns at once)."""
        return self._mine.fileno()

    def wait_ready(self, timeout: float = 120.0) -> bool:
        """Wait until the zygote has imported what learners need and takes requests; False if it died first."""
        if self._ready:
            return True
        if select.select([self._mine], [], [], timeout)[0]:
            self._ready = self._mine.recv(16) == _READY
        return self._ready

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


def _serve(sock: socket.socket, view, own_pid_namespace: int) -> None:
    """The loop: take requests, keep every running task, end each when it says so; until nobody is left."""
    from grader.sandbox.keeper import RUNNING  # imported already (PRELOAD); named here for the reader

    keepers: dict[int, int] = {}  # pidfd -> pid of an unsandboxed task's keeper
    accepting = True
    while accepting or RUNNING or keepers:
        watched = ([sock.fileno()] if accepting else []) + list(keepers)
        watched += [fd for task in RUNNING.values() for fd in task.watched()]
        try:
            ready = set(select.select(watched, [], [])[0])
        except InterruptedError:
            continue
        if sock.fileno() in ready:
            try:
                message, fds, _, _ = socket.recv_fds(sock, _MAX_REQUEST, 3)
            except ConnectionResetError:  # closed without reading "ready" (a batch never asks): closed all the same
                message, fds = b"", []
            if not message:  # every grading process has closed its end
                accepting = False
            elif len(fds) == 3:
                _take(message, fds, view, own_pid_namespace, keepers, sock)
            else:
                for fd in fds:
                    os.close(fd)
        for control, task in list(RUNNING.items()):
            if ready.intersection(task.watched()):
                del RUNNING[control]
                task.finish(stopping=control in ready)
        for pidfd in [fd for fd in keepers if fd in ready]:
            os.waitpid(keepers.pop(pidfd), 0)
            os.close(pidfd)


def _take(message: bytes, fds: list[int], view, own_pid_namespace: int, keepers: dict, sock) -> None:
    from grader.sandbox import keeper

    for fd in fds:  # received inheritable: bubblewrap (and so the sandbox) must not get them through exec
        os.set_inheritable(fd, False)
    request = json.loads(message)
    if request["sandbox"]:
        try:
            task = keeper.Task(request, fds, view, own_pid_namespace)
        except BaseException:
            return  # the task has said why on its control socket and closed it
        keeper.RUNNING[task.control] = task
        return
    pid = os.fork()
    if pid == 0:
        sock.close()
        keeper.keep_unsandboxed(request, fds)  # never returns
    keepers[os.pidfd_open(pid)] = pid
    for fd in fds:
        os.close(fd)


def _warm_up() -> None:
    """Run a tiny graph once, so LangGraph's lazy imports happen here and not in every learner process."""
    import operator
    from typing import Annotated

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


def _isolated(limits, namespaces) -> bool:
    """Whether this ordinary user's process now owns new user, pid and mount namespaces.

    Only where bubblewrap can make a sandbox: without it (not installed, no
    user namespaces in a hub's container, a /proc that a new one may not be
    mounted over) every task runs unsandboxed, and an unsandboxed task needs
    none of them.
    """
    if bubblewrap.unavailable() is not None:
        return False
    limits.keep_machine_proc()
    try:
        namespaces.isolate_self()
    except OSError:
        return False
    return True


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grading side's to handle
    sock = socket.socket(fileno=int(argv[1]))
    from grader.sandbox import limits, namespaces

    bubblewrap.adopt(os.environ.pop(bubblewrap.CHOICE, ""))  # read once; the learner's environment never holds it

    if os.geteuid() != 0 and _isolated(limits, namespaces):
        # An ordinary user owns new user, pid and mount namespaces, so it can point a learner at a sandbox's
        # pid namespace and back, as root can. The zygote proper is this process's child, pid 1 there;
        # the machine's processes are still counted for RLIMIT_NPROC through the machine's /proc.
        inner = os.fork()
        if inner:
            sock.close()
            return os.waitstatus_to_exitcode(os.waitpid(inner, 0)[1])
        namespaces.mount_own_proc()
    import importlib

    for module in PRELOAD:
        importlib.import_module(module)
    from grader.child import probes
    from grader.sandbox import cgroups, keeper

    probes.load()
    found = cgroups.detected()
    if isinstance(found, cgroups.Cgroups):
        found.sweep()
    keeper.View.sweep()
    view = keeper.View() if os.geteuid() == 0 else None
    own_pid_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    _warm_up()
    gc.collect()  # nothing of the warm-up's run stays for a learner to find
    gc.freeze()  # what is left is never scanned again: a collection in a learner would copy every page it touched
    deadline = time.monotonic() + 5
    while threading.active_count() > 1 and time.monotonic() < deadline:
        time.sleep(0.01)  # a thread pool of the warm-up winding down: forks must come from one thread
    try:
        try:
            sock.send(_READY)
        except (BrokenPipeError, ConnectionResetError):  # the grading side was done first (a module refused before
            return 0  # any task ran): nobody to serve, nothing to say
        _serve(sock, view, own_pid_namespace)
    finally:
        if view is not None:
            view.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
