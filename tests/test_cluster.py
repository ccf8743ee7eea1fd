"""Grading on a real Dask cluster (grader/warm/cluster.py): a scheduler and two workers on loopback, for this module.

The cluster is the module's, one per xdist worker that runs a test of it: about 3 s to start (the scheduler, two
workers), and each worker's warm grader a few CPU-seconds more as the first task comes.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cli import run_cli
from support.corpus import Corpus
from support.lab_server import free_port
from support.paths import SOLUTIONS
from support.service_in_thread import ServiceInThread, settings
from support.submissions import build_submission

from grader.service.app import practice_seed

pytestmark = pytest.mark.part

DASK = Path(sys.executable).parent / "dask"
STATE = (SOLUTIONS / "agstate" / "state.py").read_text()
BUG = Corpus("state").mutant_source("keep_max_zero_is_absent")
SLOW = "import time\ntime.sleep(4)  # each task's import: a worker is killed while it grades this\n" + STATE


class Cluster:
    """``dask scheduler`` and two ``dask worker`` processes (no nanny: a killed worker stays dead) on loopback."""

    def __init__(self, folder: Path):
        self.address = f"tcp://127.0.0.1:{free_port()}"
        quiet = dict(stdout=subprocess.DEVNULL, stderr=(folder / "cluster.log").open("ab"), cwd=folder)
        self.processes = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", self.address.rsplit(":", 1)[1],
                                            "--no-dashboard"], **quiet)]
        self.processes += [subprocess.Popen([DASK, "worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                             "--name", f"worker-{n}"], **quiet) for n in range(2)]
        from distributed import Client

        self.client = Client(self.address, timeout=60)
        self.client.wait_for_workers(2, timeout=60)

    def close(self) -> None:
        self.client.close()
        for process in self.processes:  # a worker's warm grader dies with it, and its zygote once alone
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    running = Cluster(tmp_path_factory.mktemp("cluster"))
    yield running
    running.close()


def _package(state: str) -> dict[str, str]:
    """The reference's agstate/ with ``state`` as state.py, as check() sends it."""
    return {**{path.name: path.read_text() for path in (SOLUTIONS / "agstate").glob("*.py")}, "state.py": state}


def test_a_check_on_the_service_is_graded_by_a_worker(cluster, tmp_path):
    # About 3 s once the cluster runs (a worker's warm grader, the task's files sent).
    running = ServiceInThread(settings(tmp_path, scheduler=cluster.address, examples=10, timeout=60.0))
    try:
        answer = running.post("ana", _package(STATE), "state.keep_max")
        failing = running.post("ben", _package(BUG), "state.keep_max")
    finally:
        running.close()
    assert answer.status_code == 200, answer.text
    assert answer.json()["seed"] == practice_seed(running.settings.practice_secret, "ana")
    assert [t["status"] for t in answer.json()["tasks"]] == ["passed"]
    assert failing.json()["tasks"][0]["status"] == "failed" and "keep_max(0," in failing.json()["tasks"][0]["feedback"]
    assert not list(running.settings.work.glob("check-*"))  # the service wrote nothing: the files went with the task


# keep_max right but 2.5 s a call (under a call's limit, 3 s at a 60 s timeout): its task would grade for 60 s.
CRAWLS = STATE.replace("def keep_max(", "def keep_max(*args, **kwargs):\n    import time\n\n    time.sleep(2.5)\n"
                                        "    return _keep_max(*args, **kwargs)\n\n\ndef _keep_max(", 1)


def test_a_check_over_the_services_limit_is_stopped_on_the_worker_too(cluster, tmp_path):
    """``--check-limit`` with ``--scheduler``: the student hears "over time" at the limit, and the worker's grading is
    stopped with all it started (the Dask task cancelled, its warm grader's fork killed), which frees the worker for
    the next check. (About 8 s: the 4 s limit, the worker's stop, one check after it.)"""
    running = ServiceInThread(settings(tmp_path, scheduler=cluster.address, examples=10, timeout=60.0, check_limit=4.0))
    workers = [process.pid for process in cluster.processes[1:]]
    try:
        over = running.post("ana", _package(CRAWLS), "state.keep_max")
        assert over.status_code == 422 and "past the service's limit of 4 s" in over.json()["error"], over.text
        deadline = time.monotonic() + 15
        while any(_grading_on(worker) for worker in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_grading_on(worker) for worker in workers), "a worker still grades the check stopped at its limit"
        running.settings.check_limit = 120.0  # read at each check: the next one is not this test's subject
        assert running.post("ana", _package(STATE), "state.keep_max").status_code == 200
    finally:
        running.close()
    assert [r["outcome"] for r in running.checks.results("ana")] == ["over time", "graded"]


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started, from any of its threads."""
    found = []
    for thread in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (thread / "children").read_text().split()]
        except OSError:
            pass
    return found


def _grading_on(worker_pid: int) -> bool:
    """Whether the worker's warm grader has a grading in progress (a fork besides its zygote)."""
    return any(len(_children(warm)) >= 2 for warm in _children(worker_pid))


def test_a_batch_of_shards_survives_a_killed_worker_and_gives_one_machines_gradebook(cluster, tmp_path):
    # About 40 s: the class graded on the cluster, a worker killed mid-shard (the shard graded again on the other),
    # then the same class graded on this machine, for the gradebook to compare.
    for name, state in (("ana", STATE), ("ben", BUG), ("zoe-slow", SLOW)):  # zoe-slow's shard is the last
        build_submission(tmp_path / "class" / name, modules={"state.py": state})
    common = ["class/*", "--task", "state.keep_max", "state.dedupe", "--seed", "7", "--examples", "10", "--timeout", "60"]
    batch = subprocess.Popen([sys.executable, "-m", "grader", *common, "--out", "cluster.csv", "--scheduler", cluster.address,
                              "--shard-size", "1"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pids = cluster.client.run(os.getpid)
    victim, deadline = None, time.monotonic() + 120
    while victim is None and time.monotonic() < deadline and batch.poll() is None:
        for worker, keys in cluster.client.processing().items():
            if any(key.startswith("agstate-shard-2-") for key in keys) and _grading_on(pids[worker]):
                victim = pids[worker]  # zoe-slow's shard, and a grading under way in that worker
        time.sleep(0.05)
    assert victim is not None, "zoe-slow's shard never ran"
    os.kill(victim, signal.SIGKILL)
    out, err = batch.communicate(timeout=300)
    assert batch.returncode == 1, err  # ben fails a task: no grader error
    local = run_cli(*common, "--out", "local.csv", cwd=tmp_path)
    assert local.returncode == 1, local.stderr
    assert (tmp_path / "cluster.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()
    logged = [json.loads(line)["submission"] for line in (tmp_path / "cluster.jsonl").read_text().splitlines()]
    assert sorted(logged) == ["class/ana", "class/ben", "class/zoe-slow"]  # each once: none lost, none twice
