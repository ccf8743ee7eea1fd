"""The old name of :mod:`grader.notebook.kernel`, kept for kernel configs written before the move.

An environment set up before the grader was cut into rooms has an
``ipython_kernel_config.py`` whose start-up lines run
``import grader.lab_kernel``; without this every kernel of it would print an
ImportError at start and lose the one-line "not written yet" errors and the
warm grader. ``make lab`` and ``agstate-workspace`` rewrite the config with
the new name. Removed on 2027-03-01 (``docs/contributing/deprecations.md``).
"""

from grader.notebook.kernel import show_unwritten, start_grader

__all__ = ["show_unwritten", "start_grader"]
