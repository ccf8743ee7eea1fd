"""Grading on a Dask cluster: a warm grader in each worker, a service's check as one task, a class batch as shards.

    dask scheduler --host 10.0.0.1                        # any Dask cluster: Kubernetes, Slurm (dask-jobqueue), SSH
    dask worker tcp://10.0.0.1:8786 --nthreads 1          # one per machine, each with the lab's environment
    agstate-grade 'submitted/*/agstate-lab' --seed S --out grades.csv --scheduler tcp://10.0.0.1:8786
    agstate-grading-service ... --scheduler tcp://10.0.0.1:8786

Whoever connects registers ``WarmGraders``, a worker plugin: each worker,
present or to come, starts a warm grader (``grader.warm.server``) and keeps
it. A task asks its worker's warm grader, which grades in a fork as it does
for the service on one machine. A batch is split into shards of
``shard_size`` submissions, one task each, graded by ``grade_many`` on
the worker with the batch's seeds: the same reports as on one machine, so
the same gradebook. Dask's scheduler schedules and retries them: a worker
that dies mid-shard has its shard graded again on another, and the shard's
reports come back once, when it is done, so none is lost or recorded twice.
A batch's submissions are paths: every worker reads them at the same path
(a shared file system). A check carries its files.

Neither this module nor the client import the engine (the service uses
them); the tasks' functions and the plugin are found by name in the
workers, which have the lab's environment with its ``cluster`` extra.
"""

import asyncio
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from distributed import Client, as_completed, get_worker
from distributed.diagnostics.plugin import WorkerPlugin

from grader.reports import report as reports
from grader.reports.report import GRADER_ERROR, grader_failed
from grader.reports.safe import clean, display_path
from grader.warm.client import InThread, Stopped

__all__ = ["WarmGraders", "grade_files", "grade_shard", "batch_grader", "ClusterChecks", "DEFAULT_SHARD"]

DEFAULT_SHARD = 25  # submissions a task: a shard's start (its seed's examples) is paid once over them
_PLUGIN = "agstate-warm-grader"


class WarmGraders(WorkerPlugin):
    """A warm grader in each worker, started as the worker takes the plugin (requests wait for it), ended with it."""

    name = _PLUGIN
    idempotent = True  # registered by every client that connects: one warm grader per worker all the same

    def setup(self, worker):
        self.folder = tempfile.mkdtemp(prefix="agstate-warm-")  # 0700: the zygote's, its sandboxes' files
        self.grader = InThread({**os.environ, "TMPDIR": self.folder})
        self.grader.loop.call_soon_threadsafe(lambda: self.grader.loop.create_task(self.grader.grader.start()))

    def teardown(self, worker):
        self.grader.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def _warm_grader() -> tuple[InThread, Callable[[], bool]]:
    """This worker's warm grader, and whether the task running here has been cancelled by its client."""
    worker = get_worker()
    key = worker.get_current_task()

    def cancelled() -> bool:
        task = worker.state.tasks.get(key)
        return task is None or task.state in ("cancelled", "released", "forgotten")

    return worker.plugins[_PLUGIN].grader, cancelled


def grade_files(files: dict[str, bytes], options: list[str], limit: float, lang: str | None = None) -> dict:
    """A Dask task: ``files`` (an ``agstate/`` package) graded as ``agstate-grade <package> options`` would; the
    warm grader's answer. Stopped with all it started past ``limit`` seconds, or when its client cancels it."""
    from grader.service.upload import write_package

    grader, cancelled = _warm_grader()
    deadline = time.monotonic() + limit
    with tempfile.TemporaryDirectory(prefix="check-") as folder:
        write_package(files, Path(folder) / "submission")
        scratch = os.path.join(folder, "tmp")
        os.mkdir(scratch)
        request = {"check": [os.path.join(folder, "submission"), *options], "tmp": scratch, "lang": lang}
        try:
            return grader.grade(request, stop=lambda: cancelled() or time.monotonic() > deadline)
        except Stopped:
            return {"returncode": -9, "stdout": "", "stderr": "stopped: over the check's limit, or cancelled"}


def grade_shard(plans: list, seeds: list[int], options: dict) -> list[dict]:
    """A Dask task: a shard of a batch graded by ``grade_many`` in this worker's warm grader; its reports, in order."""
    grader, _ = _warm_grader()
    with tempfile.TemporaryDirectory(prefix="agstate-shard-") as scratch:
        answer = grader.grade({"batch": {"plans": plans, "seeds": seeds, **options}, "tmp": scratch})
    try:
        return json.loads(answer["stdout"])["reports"]
    except (ValueError, KeyError, TypeError):
        raise RuntimeError(f"the shard's grading failed (exit {answer['returncode']}): {answer['stderr'][-2000:]}") from None


def _register(client) -> None:
    client.register_plugin(WarmGraders())


def batch_grader(address: str, shard_size: int = DEFAULT_SHARD):
    """``grade_many``'s stand-in for a batch graded on the cluster at ``address`` (same arguments, same reports)."""

    def grade_many(plans, seed, examples, timeout, memory_mb, jobs, on_report, sandbox=True, costs=None):
        seeds = list(seed) if isinstance(seed, list) else [seed] * len(plans)
        options = {"examples": examples, "timeout": timeout, "memory": memory_mb, "jobs": jobs, "sandbox": sandbox,
                   "costs": costs, "cwd": os.getcwd()}  # a path as given, read from the same folder: the same report
        with Client(address) as client:
            _register(client)
            shards = {}
            for start in range(0, len(plans), shard_size):
                indexes = list(range(start, min(start + shard_size, len(plans))))
                future = client.submit(grade_shard, [plans[i] for i in indexes], [seeds[i] for i in indexes], options,
                                       pure=False, key=f"agstate-shard-{start}-{os.urandom(4).hex()}")
                shards[future] = indexes
            for future in as_completed(shards):
                indexes = shards[future]
                try:
                    graded = future.result()
                except Exception as exc:  # the shard failed on every try: its submissions say so, the batch goes on
                    graded = [_failed(plans[i], seeds[i], sandbox, costs, f"{type(exc).__name__}: {exc}") for i in indexes]
                for index, report in zip(indexes, graded):
                    on_report(index, report)

    return grade_many


def _failed(plan, seed: int, sandbox: bool, costs, why: str) -> dict:
    submission, task_ids = plan
    report = clean(reports.failed_report(display_path(submission), task_ids, seed, GRADER_ERROR, grader_failed(why), sandbox))
    return {**report, "tasks": [{"seconds": None, **task} for task in report["tasks"]]} if costs else report


class ClusterChecks:
    """The grading service's checks, each a task on the cluster at ``address`` (``Checks`` with ``--scheduler``)."""

    def __init__(self, address: str):
        self.address, self.client = address, None

    async def start(self) -> None:
        if self.client is None:
            self.client = await Client(self.address, asynchronous=True)
            await self.client.register_plugin(WarmGraders())

    async def check(self, files: dict[str, bytes], options: list[str], limit: float, lang: str | None = None) -> dict:
        await self.start()
        future = self.client.submit(grade_files, files, options, limit, lang, pure=False)
        try:
            return await future
        except asyncio.CancelledError:
            await self.client.cancel([future])  # the worker's task sees it and stops the grading
            raise

    async def close(self) -> None:
        if self.client is not None:
            await self.client.close()
            self.client = None
