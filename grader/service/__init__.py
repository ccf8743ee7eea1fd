"""The grading service: ``check()`` of a graded course, answered on the hub, never in the student's environment.

A JupyterHub service (``agstate-grading-service``, declared in the hub's
``c.JupyterHub.services`` and started, and restarted, by the hub) receives a
student's ``agstate/`` files, grades them with ``agstate-grade`` in the
sandbox, with the course's settings and the student's practice seed, and
returns the report. The hub says who the student is (the token of the
student's server); a student grades only as themself and reads only their
own results. The room never imports the engine: it runs the grader's CLI,
as a batch does.

- ``upload``: what a request may carry (plain Python files of ``agstate/``,
  size-bounded), checked before anything is written;
- ``limits``: per student, one check at a time and a few a minute;
- ``app``: the web service, its log and its command line.
"""
