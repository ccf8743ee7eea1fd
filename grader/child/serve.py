"""The learner's side of the boundary: import the submission, run probes, send plain data.

This module runs only in the learner's process, forked from the zygote
(``grader.sandbox.zygote``) and, normally, inside the task's sandbox; the
keeper (``grader.sandbox.keeper.run_learner``) contains the process and
hands it here. It imports the
learner's module from the submission directory (exactly
``agstate/<module>.py``, never an installed package and never an
``agstate/<module>/`` folder), then answers requests: each names a probe
from ``grader.child.probes`` and its arguments. Every answer is JSON built by
``grader.wire``; the grading process decides scores.
"""

import importlib.util
import sys
import time
from pathlib import Path

from grader import wire
from grader.child import guard, probes

__all__ = ["serve", "load_learner_module"]


def load_learner_module(submission: Path, module: str):
    """Import ``agstate.<module>`` from ``submission/agstate/<module>.py`` and nowhere else."""
    package_dir = submission / "agstate"
    for name in [n for n in sys.modules if n == "agstate" or n.startswith("agstate.")]:
        del sys.modules[name]
    spec = importlib.util.spec_from_file_location("agstate", package_dir / "__init__.py",
                                                  submodule_search_locations=[str(package_dir)])
    package = importlib.util.module_from_spec(spec)
    sys.modules["agstate"] = package
    sys.path.insert(0, str(submission))
    spec.loader.exec_module(package)
    if f"agstate.{module}" in sys.modules:  # the package's __init__ imported it itself
        del sys.modules[f"agstate.{module}"]
    spec = importlib.util.spec_from_file_location(f"agstate.{module}", package_dir / f"{module}.py")
    learner = importlib.util.module_from_spec(spec)
    sys.modules[f"agstate.{module}"] = learner
    setattr(package, module, learner)
    spec.loader.exec_module(learner)
    return learner


def serve(conn, submission: str, module: str, hook: bool = True) -> None:
    """Load the learner's module, then answer probe requests until EOF; ``hook``: ``grader.child.guard`` on."""
    submission_path = Path(submission)
    kept = []  # the grader's modules, held for the life of the process
    if hook:
        guard.install()  # before the learner's first line runs: a hook cannot be removed once added
        kept = guard.hide_grader()  # noqa: F841
    started = time.perf_counter()
    try:
        learner = load_learner_module(submission_path, module)
    except BaseException as exc:  # SyntaxError, ImportError, anything the module raises on import
        conn.send_bytes(wire.dumps({"load_error": wire.Raised.of(exc, submission_path).encode()}))
        return
    # "t": seconds this process spent, for a profile of the grading (grader.engine.costs), never for a score.
    conn.send_bytes(wire.dumps({"ready": True, "t": time.perf_counter() - started}))
    context = probes.Context(learner, submission_path, conn)
    context.answer = lambda request: _answer(context, request)
    while True:
        try:
            request = wire.loads(conn.recv_bytes())
        except EOFError:
            return
        conn.send_bytes(wire.dumps(_answer(context, request)))


def _answer(context, request: dict) -> dict:
    if "batch" in request:
        return {"replies": [_answer(context, {"probe": name, "args": args}) for name, args in request["batch"]]}
    started = time.perf_counter()
    reply = _run_probe(context, request)
    reply["t"] = time.perf_counter() - started
    return reply


def _run_probe(context, request: dict) -> dict:
    probe = probes.PROBES.get(request["probe"])
    if probe is None:
        return {"grader_error": f"unknown probe {request['probe']!r}"}
    # A call-server operation (grader.child.remote) names the learner's objects by handle, both ways.
    keep, resolve = (context.keep, context.resolve) if getattr(probe, "handles", False) else (None, None)
    try:
        args = wire.decode(request["args"], resolve)
        return {"value": wire.encode(probe(context, *args), keep=keep)}
    except probes.Missing as exc:
        return {"missing": str(exc), "said": getattr(exc, "said", None)}  # its sentence, said on the grading side
    except BaseException as exc:  # the learner's code raised: that is data, not a grader failure
        return {"value": wire.encode(wire.Raised.of(exc, context.submission))}
