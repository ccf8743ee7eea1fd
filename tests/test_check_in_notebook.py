"""``check()`` as a notebook calls it: grades the workspace on disk, shows a scorecard, returns the points."""

from conftest import ROOT, SOLUTIONS
from grader import check
from grader.notebook import workspace


def test_check_grades_the_untouched_stub_without_raising(monkeypatch, capsys):
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(ROOT))
    assert check("state.dedupe", seed=3) == 0.0
    shown = capsys.readouterr().out  # no IPython here: the text scorecard
    assert "state.dedupe" in shown and "not_implemented" in shown and "03_dedupe.ipynb" in shown


def test_check_grades_a_lab_and_returns_its_points(monkeypatch, capsys):
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(SOLUTIONS))
    assert check("state", seed=4) == 100.0
    assert "score 100.0/100.0" in capsys.readouterr().out


def test_an_unknown_target_is_refused_with_the_known_ones(monkeypatch):
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(ROOT))
    try:
        check("state.nope")
    except ValueError as exc:
        assert "unknown task or lab 'state.nope'" in str(exc) and "state.dedupe" in str(exc)
    else:
        raise AssertionError("check() accepted an unknown task")


def test_the_workspace_is_where_agstate_is_imported_from(monkeypatch):
    monkeypatch.delenv("AGSTATE_WORKSPACE", raising=False)
    assert (workspace() / "agstate" / "__init__.py").is_file()
