"""The lab's kernel configuration: autoreload on for every kernel of the environment (notebook 00 shows it live)."""

import sys

import pytest

from grader.notebook import kernel as lab_kernel

pytestmark = pytest.mark.unit


def test_install_writes_the_kernel_config_once(tmp_path):
    path = lab_kernel.install(tmp_path)
    assert path == tmp_path / "etc" / "ipython" / "ipython_kernel_config.py"
    assert '"autoreload"' in path.read_text() and '"%autoreload 2"' in path.read_text()
    before = path.stat().st_mtime_ns
    assert lab_kernel.install(tmp_path) == path and path.stat().st_mtime_ns == before  # unchanged: not rewritten
    path.write_text("# someone's edit\n")
    lab_kernel.install(tmp_path)
    assert path.read_text() == lab_kernel.CONFIG  # a stale or edited file is put right


def test_ipython_reads_the_environments_config_folder():
    from IPython.core import application

    assert str(lab_kernel.config_path(sys.prefix).parent) in application.ENV_CONFIG_DIRS + application.SYSTEM_CONFIG_DIRS


def test_a_lab_kernel_names_an_unwritten_exercise_in_one_line_and_keeps_other_tracebacks():
    """Run in the environment's own kernel, as a notebook is: make test installs its config first (grader.notebook.kernel)."""
    import nbformat
    from nbclient import NotebookClient

    stub = ("def build():\n"
            "    raise NotImplementedError('events.append: __init__() is not written yet; complete it in "
            "agstate/events.py (notebook 14_append_and_retry.ipynb)')\n"
            "build()")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(stub), nbformat.v4.new_code_cell("{}['x']")])
    NotebookClient(notebook, kernel_name="python3", allow_errors=True, timeout=60).execute()
    unwritten, other = (cell.outputs[0] for cell in notebook.cells)
    assert unwritten.output_type == "error" and unwritten.ename == "NotImplementedError"  # the cell still fails
    assert unwritten.traceback == ["NotImplementedError: events.append: __init__() is not written yet; complete it in "
                                   "agstate/events.py (notebook 14_append_and_retry.ipynb)"]
    assert other.ename == "KeyError" and len(other.traceback) > 1  # every other error keeps its traceback


def test_a_cell_that_fails_because_an_unwritten_exercise_stopped_a_cell_above_says_so_in_one_line():
    """The cascade of a first pass: NameError, KeyError, a TypedDict stub with no keys; a learner's own slip is not one."""
    import nbformat
    from nbclient import NotebookClient

    unwritten = "state.window: windowed() is not written yet; complete it in agstate/state.py (notebook 05_windows.ipynb)"
    sources = [
        f"def windowed():\n    raise NotImplementedError({unwritten!r})",
        "extra = {}\nfigures = windowed()\nextra['InMemorySaver', 30] = figures",  # stops: figures never set
        "print(figures)",  # NameError for a name the stopped cell sets
        "doubled = [figures, figures]",  # fails for the same reason, so doubled is missing for it too
        "print(doubled)",
        "extra['InMemorySaver', 30]",  # KeyError while reading what the stopped cell fills
        "print(typo_of_mine)",  # a NameError of the learner's own: its traceback
        "from typing_extensions import TypedDict\nState = TypedDict('State', {})\nState.__module__ = 'agstate.state'\n"
        "result = None\nresult['trace']",  # a keyless stub of agstate in use: LangGraph gave None
        "assert extra == {('InMemorySaver', 30): 7}",  # checks what the stopped cell was filling
        "assert len('mine') == 3",  # an assertion of the learner's own: its traceback
        "def windowed():\n    return 7\nfigures = windowed()",  # written now, and the cell run again
        "print(figures)",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    NotebookClient(notebook, kernel_name="python3", allow_errors=True, timeout=60).execute()
    errors = [next((o for o in cell.outputs if o.output_type == "error"), None) for cell in notebook.cells]
    assert errors[1].traceback == [f"NotImplementedError: {unwritten}"]
    assert errors[2].traceback == [f"NameError: 'figures' is not defined: the cell above that sets it stopped, because "
                                   f"{unwritten}. Once it is written, run that cell again"]
    assert errors[4].traceback[0].startswith("NameError: 'doubled' is not defined: the cell above that sets it stopped, "
                                             f"because {unwritten}")
    assert errors[5].traceback[0].startswith("KeyError: ('InMemorySaver', 30): 'extra' is incomplete: the cell above "
                                             f"that fills it stopped, because {unwritten}")
    assert errors[6].ename == "NameError" and len(errors[6].traceback) > 1  # the learner's own slip: a traceback
    assert errors[7].traceback == ["TypeError: 'NoneType' object is not subscriptable: State (in agstate/state.py) has "
                                   "no keys yet, so the graph keeps none; write its keys (this notebook's exercise), "
                                   "then run this cell again"]
    assert errors[8].traceback == [f"AssertionError: this cell uses 'extra', which the cell above left unfinished: it "
                                   f"stopped, because {unwritten}. Once it is written, run that cell again, then this one"]
    assert errors[9].ename == "AssertionError" and len(errors[9].traceback) > 1
    assert errors[10] is None and errors[11] is None and "7" in notebook.cells[11].outputs[0].text


def test_configs_written_before_the_grader_was_cut_into_rooms_still_run():
    """An environment's old kernel config and a course's old nbgrader_config.py name modules that moved."""
    import subprocess

    old_lines = ("import grader.lab_kernel as _agstate_lab; _agstate_lab.show_unwritten; _agstate_lab.start_grader",
                 "from grader.autograde import autograde_steps, sanitize_steps; autograde_steps(); sanitize_steps()")
    for line in old_lines:
        done = subprocess.run([sys.executable, "-c", line], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
