"""A warm grader for one notebook kernel, so that ``check()`` answers in a fraction of a second.

    python -I -m grader.warm      # started by grader.notebook, from "/", one per kernel

A cold ``agstate-grade`` pays, on every call, a new interpreter, the grader's
imports and a new zygote (the clean process every sandboxed learner process
is forked from, which imports LangGraph). This process pays them once: it
imports the grader, starts its zygote, then reads requests, one JSON line on
stdin each (``{"args": [...]}``, the ``agstate-grade`` arguments). Each
request is graded in a fork of it, exactly as a cold ``agstate-grade`` with
those arguments would grade it (``grader.cli.main``: the same sandbox, limits
and report, so the same seed gives the same report), and answered with one
JSON line (``{"returncode", "stdout", "stderr"}``). The learner's code never
runs in this process or its forks: only in the zygote's sandboxed children.
It exits when its stdin closes (the kernel has gone).
"""

import json
import os
import sys
import tempfile

__all__ = ["serve"]


def _grade(args: list[str]) -> dict:
    """``agstate-grade args`` in a fork of this process: its exit status and what it printed."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:  # the fork: its stdout and stderr are the two files, then the CLI as a cold run has it
            code = 2
            try:
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                from grader import cli

                code = cli.main(args)
            except BaseException as exc:  # whatever happens, the kernel gets an answer
                print(f"agstate-grade: the warm grader failed: {type(exc).__name__}: {exc}", file=sys.stderr)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code if isinstance(code, int) else 2)
        _, status = os.waitpid(pid, 0)
        out.seek(0)
        err.seek(0)
        code = os.waitstatus_to_exitcode(status)
        return {"returncode": code, "stdout": out.read().decode(errors="replace"), "stderr": err.read().decode(errors="replace")}


def serve(requests, replies) -> None:
    """Answer each request line of ``requests`` with one line on ``replies``, until ``requests`` ends."""
    from grader import cli, zygote  # noqa: F401 - imported once, here: every fork starts with them
    from grader.batch import grade_many  # noqa: F401

    zygote.shared()  # warm: LangGraph is imported in the zygote before the first request
    for line in requests:
        try:
            args = json.loads(line)["args"]
            if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
                raise ValueError("args must be a list of strings")
        except (ValueError, KeyError, TypeError) as exc:
            reply = {"returncode": 2, "stdout": "", "stderr": f"agstate-grade: a bad request to the warm grader: {exc}"}
        else:
            reply = _grade(args)
        replies.write(json.dumps(reply) + "\n")
        replies.flush()
    zygote.close_shared()


if __name__ == "__main__":
    serve(sys.stdin, sys.stdout)
