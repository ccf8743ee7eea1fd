"""Hostile submissions of part A: state.py variants that attack the grader (docs/explanation/sandbox.md).

Each ``Hostile`` case is the reference ``solutions/agstate/state.py`` plus one
attack. ``where`` says where the attack goes:

- ``"import"``: the attack code is appended to the module, so it runs when the
  grader's child imports the submission (once per task: every task gets a
  fresh child);
- the name of one module-level function of the reference: the attack is
  inserted as the first statement of that function's body (right after its
  docstring), so it runs whenever the grader calls the function, directly or
  through a graph whose State uses it as a reducer.

``loses`` is the exact set of part-A task ids that must NOT get full marks;
every other task must get full marks. Which tasks call which function (from
``grader/parts/state/rules/`` and the reference):

- ``append``: state.append; state.window (``keep_recent`` and ``windowed``'s
  closure call ``append``); state.schemas (``build_graph``'s State uses
  ``append`` for ``trace`` and ``notes``);
- ``_items``: ``append`` and ``merge_sources`` call it: state.append,
  state.dedupe, state.window, state.schemas;
- ``merge_sources``: state.dedupe, state.schemas (``sources``);
- ``keep_max``: state.keep_max, state.schemas (``best_score``: the research
  graph writes it once per lookup round, so the reducer runs);
- ``keep_recent``: state.window, state.schemas (``recent``);
- ``windowed``: state.window only;
- ``build_graph``: state.schemas only;
- state.overwrite, state.budget and state.decisions call no learner function.

``statuses`` pins the status of a lost task where it is obvious (a loop is a
timeout, a segfault a crash); ``says`` a text its feedback must contain. A
lost task not in ``statuses`` may have any non-passing status. ``base`` is
the module the attack is added to: the reference, or the untouched stub (an
attack that would score by stealing the answers). ``layout`` names a change
to the submission folder itself (``LAYOUTS``): a folder name that is not
UTF-8, a package beside the module, a symbolic link, a sparse file, a FIFO.

Attack code may use placeholders, replaced by ``repr`` of per-run values:
``@HOSTILE_TOKEN@`` (a token unique to the test run: every process an attack
starts carries it in its command name, command line or environment, so the
test finds leftovers in /proc), ``@HOSTILE_DIR@`` (a world-writable folder
outside the sandbox), ``@VICTIM_FILE@``, ``@VICTIM_DIR@``,
``@NEIGHBOUR_STATE@`` and ``@GRADEBOOK@`` (files outside the submission that
a write must never reach), ``@REFERENCE_FILE@`` (the reference solution),
``@SUBMISSIONS_ROOT@`` (the folder every submission of the batch is in),
``@CLASSMATE_MARK_REVERSED@`` (a line only the neighbour's state.py holds;
this and ``@SUBMISSIONS_ROOT_REVERSED@`` come reversed, so the attacker's own
source and constants never hold them and cannot be mistaken for a leak),
``@LISTEN_PORT@`` and ``@ABSTRACT_SOCKET@`` (a TCP port on 127.0.0.1 and an
abstract unix socket the test listens on).

A sandboxed attack cannot write to ``@HOSTILE_DIR@``: attacks that measure
themselves (forks made, memory held) report by raising an exception whose
message starts with ``HOSTILE-``, which the test reads from the feedback.

Every attack is bounded so that a grader without limits cannot take the
machine down: the memory bomb stops at 4 GiB, the fork bomb at 10,000 forks of
a tiny ``sleep``, detached processes end by themselves after 15 minutes, and
nothing ever signals process 1 or a process group it did not derive from its
own parent.
"""

import ast
import os
import re
import textwrap
from pathlib import Path
from typing import NamedTuple

__all__ = ["Hostile", "CASES", "PART_A", "StaleCase", "case_source", "build_submission",
           "PLACEHOLDERS", "FLOOD_MARK", "GARBAGE_MARK", "LEAK_MARK", "LAYOUTS"]

# The task ids and the reference are the mutant corpus's: both corpora break the same module.
from mutants.state_mutants import APPEND, DEDUPE, KEEP_MAX, OVERWRITE, SCHEMAS, WINDOW
from support import submissions
from support.corpus import Corpus
from support.paths import LEARNER, REFERENCE

from hostile.forging import FORGING

_STATE = Corpus("state")
MODULE, PART_A = _STATE.module, _STATE.task_ids
ALL = frozenset(PART_A)
NONE = frozenset()

PLACEHOLDERS = ("HOSTILE_TOKEN", "HOSTILE_DIR", "VICTIM_FILE", "VICTIM_DIR", "NEIGHBOUR_STATE", "GRADEBOOK",
                "REFERENCE_FILE", "SUBMISSIONS_ROOT", "SUBMISSIONS_ROOT_REVERSED", "CLASSMATE_MARK_REVERSED",
                "LISTEN_PORT", "ABSTRACT_SOCKET")
FLOOD_MARK = "AGSTATE-HOSTILE-FLOOD"
GARBAGE_MARK = "AGSTATE-HOSTILE-GARBAGE"
LEAK_MARK = "HOSTILE-LEAKED"  # an attack that found what it must never see says so in its feedback


class Hostile(NamedTuple):
    name: str
    where: str  # "import", or the name of a module-level function of the reference
    attack_code: str  # unindented Python; placeholders @NAME@ allowed
    loses: frozenset  # part-A task ids that must not get full marks; all others must
    why: str  # one line: the attack, and why it loses exactly these tasks
    statuses: dict = {}  # task id -> the status it must have (obvious cases only)
    says: dict = {}  # task id -> a text its feedback must contain
    base: str = "reference"  # or "stub"
    layout: str = ""  # a key of LAYOUTS


class StaleCase(Exception):
    """A case no longer fits the reference (its function is gone, or its edit is ambiguous)."""


# -- building a submission from a case -------------------------------------------------------
def _insert_first_statement(source: str, function: str, code: str) -> tuple[str, str]:
    """(old, new): the function's header and docstring, and the same with ``code`` after them."""
    tree = ast.parse(source)
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == function]
    if len(found) != 1:
        raise StaleCase(f"the reference defines {function!r} {len(found)} times at module level (expected once)")
    node = found[0]
    first = node.body[0]
    has_docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
    last_line = first.end_lineno if has_docstring else node.body[0].lineno - 1
    lines = source.splitlines(keepends=True)
    old = "".join(lines[node.lineno - 1:last_line])
    new = old + textwrap.indent(code.strip("\n") + "\n", "    ")
    return old, new


def _substitute(code: str, values: dict[str, str]) -> str:
    for name in PLACEHOLDERS:
        code = code.replace(f"@{name}@", repr(str(values.get(name, f"/nonexistent/agstate-hostile-{name.lower()}"))))
    leftover = re.findall(r"@[A-Z_]+@", code)
    if leftover:
        raise StaleCase(f"unknown placeholders {sorted(set(leftover))}")
    return code


def case_source(case: Hostile, values: dict[str, str] | None = None) -> str:
    """The complete state.py of ``case``: its base module with the attack applied exactly once."""
    reference = ((LEARNER if case.base == "stub" else REFERENCE) / MODULE).read_text(encoding="utf-8")
    code = _substitute(case.attack_code, values or {})
    if case.where == "import":
        old = reference
        new = reference.rstrip("\n") + f"\n\n\n# -- hostile case {case.name}: runs at import --\n" + code.strip("\n") + "\n"
    else:
        old, new = _insert_first_statement(reference, case.where, code)
    count = reference.count(old)
    if count != 1:
        raise StaleCase(f"case {case.name!r}: the edit target occurs {count} times in solutions/agstate/{MODULE} (expected once)")
    source = reference.replace(old, new, 1)
    if source == reference:
        raise StaleCase(f"case {case.name!r}: the edit changed nothing")
    return source


def build_submission(case: Hostile, directory: Path, values: dict[str, str] | None = None) -> Path:
    """A submission directory (the one to grade): the reference package with the case's state.py and layout."""
    source = case_source(case, values)  # before copying: a stale case fails before anything is written
    submissions.build_submission(directory, modules={MODULE: source})
    return LAYOUTS[case.layout](Path(directory)) if case.layout else Path(directory)


# -- submission folders that are odd in themselves ---------------------------------------------
def _non_utf8_name(directory: Path) -> Path:
    """The same submission, in a folder whose name is not UTF-8 (as LMS zips of non-ASCII names give)."""
    odd = Path(os.fsdecode(os.fsencode(directory) + b"-\xff\xfe-latin1-\xe9"))
    directory.rename(odd)
    return odd


def _package_beside_module(directory: Path) -> Path:
    folder = directory / "agstate" / "state"
    folder.mkdir()
    (folder / "__init__.py").write_text("raise SystemExit('the agstate/state/ folder was imported')\n")
    return directory


def _symlinked_module(directory: Path) -> Path:
    module = directory / "agstate" / MODULE
    module.unlink()
    module.symlink_to(REFERENCE / MODULE)  # the answer, one link away
    return directory


def _sparse_file(directory: Path) -> Path:
    with open(directory / "agstate" / "data.bin", "wb") as handle:
        handle.truncate(10 * 2**30)  # 10 GiB apparent, nothing on disk
    return directory


def _fifo(directory: Path) -> Path:
    os.mkfifo(directory / "agstate" / "notes.fifo")  # reading it would block forever
    return directory


LAYOUTS = {"non_utf8_name": _non_utf8_name, "package_beside_module": _package_beside_module,
           "symlinked_module": _symlinked_module, "sparse_file": _sparse_file, "fifo": _fifo}


# -- shared attack snippets -----------------------------------------------------------------
# Marks the calling process (command name) and leaves its pid in HOSTILE_DIR.
_MARK = '''
import os as _os
import time as _time


def _hostile_mark(role):
    try:
        with open("/proc/self/comm", "w") as _comm:
            _comm.write("agh" + @HOSTILE_TOKEN@[:12])
    except OSError:
        pass
    try:
        with open(_os.path.join(@HOSTILE_DIR@, "%s-%d.pid" % (role, _os.getpid())), "w") as _out:
            _out.write(str(_os.getpid()))
    except OSError:
        pass


def _hostile_detach(job, role):
    """Double fork and setsid: the grandchild leaves the child's process group and session.

    It keeps every inherited file descriptor (the grader's pipe, stdout, stderr) open.
    """
    first = _os.fork()
    if first == 0:
        try:
            _os.setsid()
            if _os.fork() == 0:
                _hostile_mark(role)
                job()
        finally:
            _os._exit(0)
    _os.waitpid(first, 0)


def _hostile_lifetime():
    return _time.monotonic() + 900  # bounded: gone after 15 minutes even if nobody kills it
'''

_SLEEPERS = _MARK + '''

def _hostile_sleep():
    end = _hostile_lifetime()
    while _time.monotonic() < end:
        _time.sleep(1)


_hostile_detach(_hostile_sleep, "sleeper")
_hostile_detach(_hostile_sleep, "sleeper")
'''

_WRITER = _MARK + '''

def _hostile_write():
    path = _os.path.join(@HOSTILE_DIR@, "writer-%d.log" % _os.getpid())
    end = _hostile_lifetime()
    while _time.monotonic() < end:
        try:
            with open(path, "a") as out:
                out.write("still running at %f\\n" % _time.time())
        except OSError:
            pass
        try:
            _os.write(1, b"a detached writer still prints\\n")  # the inherited stdout of the grader's child
        except OSError:
            pass
        _time.sleep(0.2)


_hostile_detach(_hostile_write, "writer")
'''

_FLOOD = f'''
import sys as _sys

_line = "{FLOOD_MARK} " + "x" * {1024 - len(FLOOD_MARK) - 2} + "\\n"  # 1 KiB
_chunk = _line * 1024  # 1 MiB
for _ in range(64):
    _sys.stdout.write(_chunk)
_sys.stdout.flush()
for _ in range(64):
    _sys.stderr.write(_chunk)
_sys.stderr.flush()
'''

_THREAD = '''
import threading as _threading
import time as _time


def _hostile_forever():
    end = _time.monotonic() + 900
    while _time.monotonic() < end:
        _time.sleep(0.5)


_threading.Thread(target=_hostile_forever, name="never-ends", daemon=False).start()
'''

# A wrong keep_max (the smaller value wins), then tampering meant to make the judges agree with it.
# Only modules the judging side uses are touched: breaking the child's own reply code (wire, child,
# probes) is another attack (tamper_reply_channel).
_TAMPER_JUDGES = '''
def keep_max(old, new):  # redefined after State was built: State.best_score keeps the reference
    if old is None:
        return new
    if new is None:
        return old
    return new if new < old else old


import sys as _sys


def _hostile_anything(*args, **kwargs):
    return None


def _hostile_tamper():
    try:
        import hypothesis
        import hypothesis.strategies as st

        hypothesis.given = lambda *a, **k: (lambda test: (lambda *aa, **kk: None))
        hypothesis.settings = lambda *a, **k: (lambda test: test)
        hypothesis.seed = lambda *a, **k: (lambda test: test)
        for name in ("integers", "floats", "text", "lists", "tuples", "one_of", "sampled_from", "booleans", "none"):
            setattr(st, name, lambda *a, **k: st.just(None))
    except Exception:
        pass
    for name in ("grader.engine.runner", "grader.engine.checking", "grader.engine.registry", "grader.parts.state.rules",
                 "grader.parts.state.checks", "grader.engine.expectations", "grader.cli", "grader.engine.batch", "grader.sandbox",
                 "grader.engine.bank"):
        try:
            __import__(name)
        except Exception:
            continue
        module = _sys.modules.get(name)
        if module is None:
            continue
        for attr in ("grade_submission", "run_task", "_run_rule", "expect_value", "expect_list_result",
                     "expect_pure", "state_key_graph", "require_keys", "show"):
            if hasattr(module, attr):
                setattr(module, attr, _hostile_anything)
        if hasattr(module, "model_keep_max"):
            module.model_keep_max = keep_max
        for cls_name in ("Checker", "Failure", "Abort", "Session"):
            cls = getattr(module, cls_name, None)
            if isinstance(cls, type):
                for method in ("forall", "value", "call", "probe", "__init__"):
                    try:
                        setattr(cls, method, _hostile_anything)
                    except Exception:
                        pass


_hostile_tamper()
'''



CASES: list[Hostile] = [
    # -- loops and waits ------------------------------------------------------------------
    Hostile(
        "infinite_loop", "merge_sources",
        "while True:\n    pass\n",
        frozenset({DEDUPE, SCHEMAS}),
        "merge_sources never returns; the research graph's sources reducer is merge_sources",
        statuses={DEDUPE: "timeout", SCHEMAS: "timeout"},
    ),
    Hostile(
        "loop_ignoring_signals", "keep_recent",
        """
import signal
_signals = {signal.SIGALRM, signal.SIGTERM, signal.SIGINT, signal.SIGXCPU, signal.SIGHUP,
            signal.SIGUSR1, signal.SIGUSR2, signal.SIGVTALRM, signal.SIGPROF}
for _number in _signals:
    try:
        signal.signal(_number, signal.SIG_IGN)
    except (ValueError, OSError):
        pass  # not the main thread: the mask below still blocks them
signal.pthread_sigmask(signal.SIG_BLOCK, _signals)
while True:
    pass
""",
        frozenset({WINDOW, SCHEMAS}),
        "keep_recent ignores and blocks SIGALRM/SIGTERM/SIGINT/SIGXCPU then spins; State.recent uses keep_recent",
        statuses={WINDOW: "timeout", SCHEMAS: "timeout"},
    ),
    Hostile(
        "sleep_two_minutes_at_import", "import",
        "import time as _time\n_time.sleep(120)\n",
        ALL,
        "the module takes two minutes to import: every task's child is stuck importing",
        statuses={task: "timeout" for task in PART_A},
    ),
    Hostile(
        "non_daemon_thread_at_import", "import",
        _THREAD,
        NONE,
        "a non-daemon thread that never ends keeps the child from exiting by itself; every answer is right",
    ),
    # -- exits and crashes ------------------------------------------------------------------
    Hostile(
        "sys_exit_in_reducer", "append",
        'import sys\nsys.exit("append gives up")\n',
        frozenset({APPEND, WINDOW, SCHEMAS}),
        "append raises SystemExit; keep_recent, windowed's closure and State.trace/notes all call append",
        statuses={APPEND: "error"},
        says={APPEND: "SystemExit"},
    ),
    Hostile(
        "os_exit_at_import", "import",
        "import os as _os\n_os._exit(0)\n",
        ALL,
        "the import ends the process with status 0: no task can run, and a clean exit is no success",
        statuses={task: "crashed" for task in PART_A},
        says={OVERWRITE: "exit status 0"},
    ),
    Hostile(
        "frame_written_on_the_graders_socket", "import",
        """
import os as _os
import struct as _struct
for _fd in range(3, 64):  # the call server's socket is the only socket the process holds
    try:
        if _os.fstat(_fd).st_mode & 0o170000 == 0o140000:
            _os.write(_fd, _struct.pack("!i", 2) + b"{}")  # a well-framed message out of turn: the answers shift by one
    except OSError:
        pass
""",
        ALL,
        "the import writes a frame of its own on the grader's socket: every answer after it is one out of turn, the "
        "learner's crash, never the grader's failure (it once made every task a grader error, a regrade at will)",
        statuses={task: "crashed" for task in PART_A},
        says={OVERWRITE: "did your code write to the grader's socket?"},
    ),
    Hostile(
        "segfault_ctypes", "keep_max",
        "import ctypes\nctypes.string_at(0)\n",
        frozenset({KEEP_MAX, SCHEMAS}),
        "keep_max dereferences NULL through ctypes (SIGSEGV); State.best_score uses keep_max",
        statuses={KEEP_MAX: "crashed"},
        says={KEEP_MAX: "SIGSEGV"},
    ),
    Hostile(
        "infinite_recursion", "_items",
        "return _items(new)\n",
        frozenset({APPEND, DEDUPE, WINDOW, SCHEMAS}),
        "_items calls itself (RecursionError); append and merge_sources call _items, and everything calls those",
        statuses={APPEND: "error", DEDUPE: "error"},
        says={APPEND: "RecursionError"},
    ),
    Hostile(
        "deep_recursion_raised_limit", "keep_recent",
        """
import sys
sys.setrecursionlimit(1_000_000)


def _hostile_down(depth):
    return _hostile_down(depth + 1) + 1


return _hostile_down(0)
""",
        frozenset({WINDOW, SCHEMAS}),
        "keep_recent lifts the recursion limit to a million and recurses: a huge traceback, or a dead process",
    ),
    # -- resources ----------------------------------------------------------------------------
    Hostile(
        "memory_bomb", "import",
        """
import os as _os
# At import, 64 MiB at a time, every page written; never more than 4 GiB, limit or not. When the
# memory runs out it prints how much it held and ends its process, so every task's feedback quotes
# it (a process killed for its memory says nothing: its feedback names the limit instead).
_hoard = []
try:
    while len(_hoard) < 64:
        _chunk = bytearray(64 << 20)
        _chunk[::4096] = b"\\x01" * len(range(0, 64 << 20, 4096))
        _hoard.append(_chunk)
except MemoryError:
    pass
_held = 64 * len(_hoard)
_hoard.clear()
print("HOSTILE-HELD %d MiB" % _held, flush=True)
_os._exit(3)
""",
        ALL,
        "at import, hoards memory (up to 4 GiB) until a memory limit stops it, then ends its process: no task runs",
        statuses={task: "crashed" for task in PART_A},
    ),
    Hostile(
        "memory_across_processes", "import",
        """
import os as _os
import select as _select
import sys as _sys
import time as _time
# 10 processes of 128 MiB each (1,280 MiB, every page written), each within a per-process limit: only
# a limit on the whole tree stops them. It prints how many hold their memory, how many were stopped
# (died) and how many were still writing their pages when it looked, then ends its own process, so
# every task's feedback quotes it. It looks once every child has reported or died, or after 6 s, inside
# the batch's 8 s import limit: on a busy machine some may still be writing then, and they count as
# such, not as stopped.
# Bounded: each child is gone after 30 s by itself.
_ready_r, _ready_w = _os.pipe()
_children = []
for _ in range(10):
    try:
        _pid = _os.fork()
    except OSError:
        break
    if _pid == 0:
        try:
            _block = bytearray(128 << 20)
            _block[::4096] = b"\\x01" * len(range(0, 128 << 20, 4096))  # one write per page: all of it is real
            _os.write(_ready_w, b"x")
            _time.sleep(30)
        finally:
            _os._exit(0)
    _children.append(_pid)
_os.close(_ready_w)
_reported, _dead = set(), set()
_deadline = _time.monotonic() + 6.0
while _time.monotonic() < _deadline and len(_reported) + len(_dead) < len(_children):
    if _select.select([_ready_r], [], [], 0.05)[0]:
        _reported.update(range(len(_reported), len(_reported) + len(_os.read(_ready_r, 64))))
    for _pid in _children:
        if _pid not in _dead and _os.waitpid(_pid, _os.WNOHANG) != (0, 0):
            _dead.add(_pid)
_time.sleep(0.3)  # a child killed for memory after it reported is gone by now
for _pid in _children:
    if _pid not in _dead and _os.waitpid(_pid, _os.WNOHANG) != (0, 0):
        _dead.add(_pid)
_holding = min(len(_reported), len(_children) - len(_dead))
_writing = len(_children) - len(_dead) - _holding
print("HOSTILE-TREE-HELD %d MiB in %d processes; %d stopped, %d still writing, of %d"
      % (128 * _holding, _holding, len(_dead), _writing, len(_children)), flush=True)
_os._exit(3)
""",
        ALL,
        "at import, 10 processes of 128 MiB each: only a memory limit on the whole process tree stops them; "
        "then it ends its process, so no task runs",
        statuses={task: "crashed" for task in PART_A},
    ),
    Hostile(
        "fork_bomb", "build_graph",
        """
import os
import shutil
global _HOSTILE_FORKED
if not globals().get("_HOSTILE_FORKED"):
    _HOSTILE_FORKED = True
    _sleep = shutil.which("sleep") or "/bin/sleep"
    _forked = 0
    try:
        # Bounded: 10,000 tiny `sleep` processes at most, each gone after 5 minutes by itself. posix_spawn, not
        # fork + exec: it does not copy this large process, so the limit is met well within the call's time even
        # on a busy machine (a fork per child took over a second to get there under load).
        while _forked < 10_000:
            os.posix_spawn(_sleep, ["agh" + @HOSTILE_TOKEN@ + "-bomb", "300"], {"AGSTATE_HOSTILE_TOKEN": @HOSTILE_TOKEN@})
            _forked += 1
    except OSError:
        raise RuntimeError("HOSTILE-FORKED %d" % _forked) from None
    raise RuntimeError("HOSTILE-FORKED %d" % _forked)
""",
        frozenset({SCHEMAS}),
        "build_graph spawns a sleeping process up to 10,000 times; the process limit must stop it (spawning raises)",
    ),
    Hostile(
        "output_flood_at_import", "import",
        _FLOOD,
        NONE,
        "64 MiB to stdout and 64 MiB to stderr at import: captured and capped, it costs nothing",
    ),
    Hostile(
        "huge_return_value", "merge_sources",
        'return ["AGSTATE"] * 50_000_000\n',
        frozenset({DEDUPE, SCHEMAS}),
        "merge_sources returns a list of 50 million items: too large to send back, and wrong anyway",
    ),
    # -- processes that outlive the child ------------------------------------------------------
    Hostile(
        "detached_sleepers_at_import", "import",
        _SLEEPERS,
        NONE,
        "two double-forked, setsid processes that sleep for 15 minutes; every answer is right",
    ),
    Hostile(
        "detached_writer_at_import", "import",
        _WRITER,
        NONE,
        "a double-forked, setsid process that keeps appending to a file and printing; every answer is right",
    ),
    # -- attacks on the grader --------------------------------------------------------------------
    Hostile(
        "tamper_judges_at_import", "import",
        _TAMPER_JUDGES,
        frozenset({KEEP_MAX}),
        "a wrong keep_max plus patched grader judges and Hypothesis in the child: the verdicts are not made there",
        statuses={KEEP_MAX: "failed"},
    ),
    Hostile(
        "tamper_reply_channel", "keep_max",
        """
import sys
_wire = sys.modules.get("grader.wire")
if _wire is not None:
    _wire.dumps = lambda message: b"\\xff\\xfe this is not the grader's JSON"
_connection = sys.modules.get("multiprocessing.connection")
if _connection is not None:
    _connection.Connection.send_bytes = lambda self, buf, offset=0, size=None: self._send_bytes(b"\\xff" * 64)
raise RuntimeError("keep_max tampered with the grader's reply channel")
""",
        frozenset({KEEP_MAX, SCHEMAS}),
        "keep_max makes the child's replies garbage, then raises; State.best_score uses keep_max",
    ),
    Hostile(
        "kill_the_grader", "keep_max",
        """
import os
import signal
_parent = os.getppid()
if _parent > 1:
    for _attack in (lambda: os.kill(_parent, signal.SIGKILL),
                    lambda: os.killpg(os.getpgid(_parent), signal.SIGKILL)):
        try:
            if os.getpgid(_parent) > 1:
                _attack()
        except OSError:
            pass
raise RuntimeError("keep_max tried to kill the grader")
""",
        frozenset({KEEP_MAX, SCHEMAS}),
        "keep_max SIGKILLs its parent and the parent's process group, then raises; State.best_score uses keep_max",
    ),
    Hostile(
        "alarm_in_reducer", "merge_sources",
        """
import signal
import time
signal.alarm(1)  # the classic call; the same timer, made sub-second, so SIGALRM (default action:
signal.setitimer(signal.ITIMER_REAL, 0.1)  # terminate) comes well before any per-call time limit
time.sleep(3)
raise RuntimeError("merge_sources outlived its own SIGALRM")
""",
        frozenset({DEDUPE, SCHEMAS}),
        "merge_sources arms SIGALRM (alarm, then a 0.1 s setitimer) and sleeps: it ends its own process, never the grader",
        statuses={DEDUPE: "crashed"},
    ),
    Hostile(
        "garbage_into_inherited_fds", "keep_recent",
        f"""
import os
for _fd in range(21):
    try:
        os.write(_fd, b"\\n]}}{GARBAGE_MARK}\\x00\\xff{{[\\n")
    except OSError:
        pass
for _fd in range(21):
    try:
        os.close(_fd)
    except OSError:
        pass
""",
        frozenset({WINDOW, SCHEMAS}),
        "keep_recent writes garbage into file descriptors 0-20, then closes them: it cuts its own line to the grader",
    ),
    Hostile(
        "write_outside_its_folder", "append",
        """
import os
global _HOSTILE_WROTE
if not globals().get("_HOSTILE_WROTE"):
    _HOSTILE_WROTE = True
    for _target, _text in ((@VICTIM_FILE@, "overwritten by a submission\\n"),
                           (@NEIGHBOUR_STATE@, "raise SystemExit('sabotaged by another submission')\\n"),
                           (os.path.join(@VICTIM_DIR@, "planted.txt"), "planted by a submission\\n")):
        try:
            with open(_target, "w") as _out:
                _out.write(_text)
        except OSError:
            pass
""",
        NONE,
        "append tries to overwrite an instructor's file and another submission's state.py, then answers right",
    ),
    # -- reading what it must not see ------------------------------------------------------------
    Hostile(
        "read_the_reference", "import",
        """
import os as _os
import sys as _sys
# The answers are one open() away from the grader's own files, or from the path the test knows.
_grader = _sys.modules.get("grader")
_places = [@REFERENCE_FILE@, "/proc/1/cwd/solutions/agstate/state.py", _os.path.expanduser("~/solutions/agstate/state.py")]
if _grader is not None and getattr(_grader, "__file__", None):
    _places.insert(0, _os.path.join(_os.path.dirname(_os.path.dirname(_grader.__file__)), "solutions", "agstate", "state.py"))
for _place in _places:
    try:
        with open(_place) as _answer:
            exec(compile(_answer.read(), __file__, "exec"), globals())
        break
    except OSError:
        continue
""",
        ALL,
        "the untouched stub plus code that execs solutions/agstate/state.py: it can read no reference, so it is a stub",
        base="stub",
        statuses={task: "not_implemented" for task in PART_A},
    ),
    Hostile(
        "forge_the_scenarios", "import",
        FORGING["state"],
        ALL,
        "the untouched stub plus a block that finds the child's probe registry through its callers' frames (every name "
        "built at run time) and answers each old scenario (graph runs, channels, the research run and its tool ledger, "
        "the timing) as the model would: the scenarios run in the grading process, so it is a stub (28/100 before)",
        base="stub",
        statuses={task: "not_implemented" for task in PART_A},
    ),
    Hostile(
        "read_a_classmate", "import",
        """
import glob as _glob
import os as _os
import tempfile as _tempfile
import time as _time
# Look for another submission's state.py (the neighbour's holds a line no other file has) for a
# while, so that some other submission is being graded at the same time.
_roots = [@SUBMISSIONS_ROOT@, _tempfile.gettempdir(), "/tmp", "/dev/shm", "/proc/1/root/tmp"]
_deadline = _time.monotonic() + 0.3
while _time.monotonic() < _deadline:
    for _root in _roots:
        for _path in _glob.glob(_os.path.join(_root, "**", "state.py"), recursive=True)[:2000]:
            try:
                with open(_path) as _other:
                    _text = _other.read()
            except OSError:
                continue
            if @CLASSMATE_MARK_REVERSED@[::-1] in _text:
                raise RuntimeError("HOSTILE-LEAKED a classmate's file: " + _path)
    _time.sleep(0.05)
""",
        NONE,
        "while others are graded, searches the temp folders and the batch's folder for a classmate's state.py",
    ),
    Hostile(
        "snoop_on_the_grader", "import",
        """
import gc as _gc
import os as _os


def _hostile_snoop():  # a function: its locals are no dict for gc to find (the batch's path is one of them)
    root = @SUBMISSIONS_ROOT_REVERSED@[::-1]
    found = []
    _gc.unfreeze()  # the zygote froze what it had before forking: frozen objects are invisible to get_objects()
    for thing in _gc.get_objects():  # reports, batch plans, expected answers of the grading side?
        if isinstance(thing, dict) and ({"score", "max_score"} <= thing.keys() or {"submission", "seed"} <= thing.keys()):
            found.append("a report-like dict " + repr(sorted(thing))[:80])
        elif isinstance(thing, (list, tuple, dict)):
            items = list(thing.values() if isinstance(thing, dict) else thing)[:50]
            if any(isinstance(item, str) and root in item for item in items):
                found.append("the batch's paths in a %s" % type(thing).__name__)
    for pid in [name for name in _os.listdir("/proc") if name.isdigit()]:  # the grader's processes?
        for part in ("cmdline", "environ"):
            try:
                with open("/proc/%s/%s" % (pid, part), "rb") as handle:
                    text = handle.read().decode(errors="replace")
            except OSError:
                continue
            if root in text or "AGSTATE_HOSTILE_TOKEN" in text:
                found.append("process %s's %s" % (pid, part))
    if "AGSTATE_HOSTILE_TOKEN" in _os.environ:
        found.append("the grader's environment")
    if found:
        raise RuntimeError("HOSTILE-LEAKED " + "; ".join(found[:5]))


_hostile_snoop()
""",
        NONE,
        "walks gc.get_objects(), /proc and its environment for reports, the batch plan and the grader's processes",
    ),
    # -- writing where it must not -------------------------------------------------------------------
    Hostile(
        "rewrite_the_gradebook", "import",
        """
import os as _os
_fake = '{"submission": "forged", "seed": 0, "score": 1e9, "max_score": 1, "tasks": []}\\n'
for _path, _text in ((@GRADEBOOK@, "submission,total\\nforged,1000000\\n"),
                     (_os.path.splitext(@GRADEBOOK@)[0] + ".jsonl", _fake)):
    try:
        with open(_path, "a") as _out:
            _out.write(_text)
    except OSError:
        pass
""",
        NONE,
        "appends a forged row to the batch's gradebook CSV and its log, whose paths it knows",
    ),
    Hostile(
        "plant_a_pth_in_the_venv", "import",
        """
import os as _os
import sys as _sys
import sysconfig as _sysconfig
# A .pth file runs in every later Python process of that environment. This one holds no code.
_places = set(_p for _p in _sys.path if _p) | {_sysconfig.get_paths()["purelib"]}
_grader = _sys.modules.get("grader")
if _grader is not None and getattr(_grader, "__file__", None):
    _places.add(_os.path.dirname(_grader.__file__))
for _place in _places:
    try:
        with open(_os.path.join(_place, "agstate_hostile_" + @HOSTILE_TOKEN@ + ".pth"), "w") as _out:
            _out.write("# planted by a submission\\n")
    except OSError:
        pass
""",
        NONE,
        "writes a .pth file into every folder on sys.path and the grader's package, then answers right",
    ),
    Hostile(
        "fill_the_temp_dir", "import",
        """
import os as _os
import tempfile as _tempfile
# Up to 1 GiB of files in the temp folder and /dev/shm: whatever it manages is gone before the next task.
_chunk = b"\\x00" * (8 << 20)
for _folder in (_tempfile.gettempdir(), "/dev/shm"):
    _written = 0
    for _number in range(128):
        try:
            with open(_os.path.join(_folder, "agh-fill-%s-%d" % (@HOSTILE_TOKEN@, _number)), "wb") as _out:
                _out.write(_chunk)
            _written += len(_chunk)
        except OSError:
            break
""",
        NONE,
        "fills its temp folder and /dev/shm with up to 1 GiB at import: its own, capped, gone after each task",
    ),
    Hostile(
        "leave_shared_memory", "import",
        """
import ctypes as _ctypes
import glob as _glob
import os as _os
import tempfile as _tempfile
_libc = _ctypes.CDLL(None, use_errno=True)
_KEY = 0x6A9E
# Anything an earlier task of this submission left behind would be found here.
_left = _glob.glob(_os.path.join(_tempfile.gettempdir(), "agh-left-*")) + _glob.glob("/dev/shm/agh-left-*")
if _libc.shmget(_KEY, 0, 0) != -1:
    _left.append("SysV shared memory key %#x" % _KEY)
if _left:
    raise RuntimeError("HOSTILE-LEAKED an earlier task's leftovers: " + ", ".join(_left[:5]))
_segment = _libc.shmget(_KEY, 32 << 20, 0o1666)  # IPC_CREAT | 0666
if _segment != -1:
    _address = _libc.shmat(_segment, None, 0)
for _folder in (_tempfile.gettempdir(), "/dev/shm"):
    try:
        with open(_os.path.join(_folder, "agh-left-" + @HOSTILE_TOKEN@), "wb") as _out:
            _out.write(b"\\x01" * (1 << 20))
    except OSError:
        pass
""",
        NONE,
        "leaves a SysV segment and files in /tmp and /dev/shm, and looks for an earlier task's: none may outlive a task",
    ),
    Hostile(
        "phone_home", "import",
        """
import socket as _socket
for _family, _address in ((_socket.AF_INET, ("127.0.0.1", @LISTEN_PORT@)), (_socket.AF_UNIX, "\\0" + @ABSTRACT_SOCKET@)):
    try:
        _connection = _socket.socket(_family, _socket.SOCK_STREAM)
        _connection.settimeout(0.5)
        _connection.connect((_address[0], int(_address[1])) if _family == _socket.AF_INET else _address)
        _connection.sendall(b"phoned home")
        _connection.close()
    except OSError:
        pass
""",
        NONE,
        "connects to a TCP port on 127.0.0.1 and an abstract unix socket the test listens on",
    ),
    Hostile(
        "kill_everything_it_can_signal", "keep_max",
        """
import os
import signal
if os.getpid() < 1000:  # in a pid namespace of its own: anywhere else this would kill the test's processes
    os.kill(-1, signal.SIGKILL)
raise RuntimeError("keep_max outlived kill(-1)")
""",
        frozenset({KEEP_MAX, SCHEMAS}),
        "keep_max sends SIGKILL to every process it may signal (kill -1); State.best_score uses keep_max",
    ),
    # -- data that would break the grader's output -----------------------------------------------------
    Hostile(
        "lone_surrogate_reply", "merge_sources",
        'return ["\\udcff", "\\ud800"]\n',
        frozenset({DEDUPE, SCHEMAS}),
        "merge_sources returns strings with lone surrogates, which no UTF-8 writer accepts",
    ),
    Hostile(
        "line_separator_reply", "keep_recent",
        'return ["a\\u2028b", "c\\u2029d", "\\x1b[2J\\x1b]0;pwned\\x07"]\n',
        frozenset({WINDOW}),
        "keep_recent returns U+2028, U+2029 and terminal escape codes (a log line must stay one line); "
        "state.schemas never reads what State.recent holds",
    ),
    Hostile(
        "forty_megabyte_reply", "keep_max",
        'return "x" * 40_000_000\n',
        frozenset({KEEP_MAX, SCHEMAS}),
        "keep_max returns a 40 MB string: the report and its log line stay small",
    ),
    Hostile(
        "nested_reply_under_every_cap", "keep_max",
        'return [["x" * 1999] * 49] * 49\n',
        frozenset({KEEP_MAX, SCHEMAS}),
        "keep_max returns 49 lists of 49 strings of 1,999 characters: each under its cap, 4.8 MB in all; the "
        "counterexample is cut as a whole, so the report stays small",
    ),
    Hostile(
        "forty_megabytes_nested", "keep_max",
        'return [[["x" * 1999] * 49] * 49] * 8\n',
        frozenset({KEEP_MAX, SCHEMAS}),
        "keep_max returns 38 MB nested under every per-item cap: more than a reply may be, so the grading side never "
        "reads it (a crash that says so)",
        says={KEEP_MAX: "more than 8 MB"},
    ),
    Hostile(
        "nan_reply", "append",
        'return [float("nan"), float("inf")]\n',
        frozenset({APPEND, WINDOW, SCHEMAS}),
        "append returns NaN and infinity, which strict JSON has no way to write",
    ),
    # -- folders that are odd in themselves -----------------------------------------------------------
    Hostile("non_utf8_folder_name", "import", "pass\n", NONE,
            "the reference, in a folder whose name is not UTF-8 (an LMS zip's): graded and reported like any other",
            layout="non_utf8_name"),
    Hostile("package_beside_module", "import", "pass\n", NONE,
            "the reference, plus an agstate/state/ package that ends the process when imported: only state.py is graded",
            layout="package_beside_module"),
    Hostile("symlinked_module", "import", "pass\n", ALL,
            "agstate/state.py is a symbolic link to the reference solution: it is left out, so the module is missing",
            layout="symlinked_module", says={OVERWRITE: "symbolic link"}),
    Hostile("sparse_file", "import", "pass\n", ALL,
            "agstate/ holds a sparse 10 GiB file: the copy is refused, not made", layout="sparse_file",
            says={OVERWRITE: "more than 32 MB"}),
    Hostile("fifo_in_package", "import", "pass\n", NONE,
            "agstate/ holds a FIFO, which blocks whoever reads it: left out of the copy", layout="fifo"),
]
