"""Warm graders for many students: the grading service's, and each Dask worker's.

- ``server``: the warm grader, a process of its own (``python -I -m grader.warm.server``): the grader imported, its
  zygote up, each seed's examples kept; every grading in a fork of it, stopped with all it started on request;
- ``client``: its other end, for an asyncio loop (the service) or a thread (a Dask worker): no engine, no sandbox;
- ``cluster``: grading on a Dask cluster: the worker plugin that keeps a warm grader in each worker, a check as one
  Dask task, a class batch as shards.

The client and the cluster module never import the engine (``pyproject.toml``'s contracts): the grading service
uses them and stays out of the engine, as a warm grader is another process.
"""

# Seeds whose examples a warm grader keeps (a whole part's at 80 examples: about 130 kB each): its own limit, and the
# service's on a roster drawn ahead. Here, as the service may not import the server (pyproject.toml's contracts).
KEPT_SEEDS = 256
