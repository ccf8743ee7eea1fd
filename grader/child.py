"""The learner's side of the boundary: import the submission, run probes, send plain data.

This module runs only inside a child process. It imports the learner's module
from the submission directory (never from an installed package), then answers
requests: each names a probe from ``grader.probes`` and its arguments. Every
answer is JSON built by ``grader.wire``; the grading process decides scores.
"""

import importlib
import importlib.util
import os
import sys
import traceback
from pathlib import Path

from grader import wire

__all__ = ["serve", "load_learner_module", "describe_exception"]

# Imported once by the grading process before it forks children, so a child pays nothing for them.
PRELOAD = ["langgraph.graph", "langgraph.checkpoint.memory", "pydantic", "typing_extensions", "grader.probes",
           "grader.containment"]


def load_learner_module(submission: Path, module: str):
    """Import ``agstate.<module>`` from ``submission/agstate`` and nowhere else.

    The runner has checked that both files exist (``runner._missing_module``).
    """
    package_dir = submission / "agstate"
    init = package_dir / "__init__.py"
    for name in [n for n in sys.modules if n == "agstate" or n.startswith("agstate.")]:
        del sys.modules[name]
    spec = importlib.util.spec_from_file_location("agstate", init, submodule_search_locations=[str(package_dir)])
    package = importlib.util.module_from_spec(spec)
    sys.modules["agstate"] = package
    sys.path.insert(0, str(submission))
    spec.loader.exec_module(package)
    return importlib.import_module(f"agstate.{module}")


def describe_exception(exc: BaseException, submission: Path) -> dict:
    """Plain facts about a learner's exception: type, message and the learner's own line."""
    try:
        message = str(exc)
    except BaseException:
        message = "<unprintable message>"
    info = {
        "type": type(exc).__name__,
        "mro": [cls.__name__ for cls in type(exc).__mro__],
        # LangGraph appends "For troubleshooting, visit: <url>": the first line is the message.
        "message": message.strip().split("\n")[0][:500],
        "where": None,
    }
    if isinstance(exc, SyntaxError) and exc.filename:
        info["message"] = str(exc.msg)
        info["where"] = {"file": _relative(exc.filename, submission), "line": exc.lineno, "code": (exc.text or "").strip()}
        return info
    root = str(submission.resolve())
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename and os.path.abspath(frame.filename).startswith(root):
            info["where"] = {"file": _relative(frame.filename, submission), "line": frame.lineno,
                             "code": (frame.line or "").strip(), "function": frame.name}
            break
    return info


def _relative(filename: str, submission: Path) -> str:
    try:
        return str(Path(filename).resolve().relative_to(submission.resolve()))
    except ValueError:
        return filename


def serve(conn, submission: str, module: str, output_fd: int, limits) -> None:
    """Child entry point: load the learner's module, then answer probe requests until EOF."""
    from grader import containment, probes  # already imported by the grading process (PRELOAD)

    os.setsid()  # own process group: the grader can kill everything the learner starts
    # The learner's prints go to a pipe the grader drains and caps, never to
    # the grader's stdout (--json stays one clean document).
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    containment.apply_in_child(limits, keep_fds=(conn.fileno(),))
    submission_path = Path(submission)
    try:
        learner = load_learner_module(submission_path, module)
    except BaseException as exc:  # SyntaxError, ImportError, anything the module raises on import
        conn.send_bytes(wire.dumps({"load_error": describe_exception(exc, submission_path)}))
        return
    conn.send_bytes(wire.dumps({"ready": True}))
    context = probes.Context(learner, submission_path)
    while True:
        try:
            request = wire.loads(conn.recv_bytes())
        except EOFError:
            return
        conn.send_bytes(wire.dumps(_answer(probes, context, request)))


def _answer(probes, context, request: dict) -> dict:
    if "batch" in request:
        return {"replies": [_answer(probes, context, {"probe": name, "args": args}) for name, args in request["batch"]]}
    probe = probes.PROBES.get(request["probe"])
    if probe is None:
        return {"grader_error": f"unknown probe {request['probe']!r}"}
    args = wire.decode(request["args"])
    try:
        return {"value": wire.encode(probe(context, *args))}
    except probes.Missing as exc:
        return {"missing": str(exc)}
    except BaseException as exc:  # the learner's code raised: that is data, not a grader failure
        return {"raised": describe_exception(exc, context.submission)}
