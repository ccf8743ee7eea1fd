"""The documentation is true: it builds, its counts come from the code, and everything it points at exists.

- ``docs/`` builds with Sphinx, offline, warnings as errors (a broken
  cross-reference, a missing page or substitution fails);
- no page writes a count the code gives (the corpora, the notebooks, the
  points): those are substitutions (``docs/_ext/agstate_docs.py``);
- every file of the repository a page or the README names, and every link
  of the README, exists;
- the report's page names every field of the report's shape, and the
  environment's page every variable the lab reads;
- the contributor's map of ``grader/`` has a row for each of its entries and
  none for an entry that is gone; each deprecated name says the day it goes;
- nothing cites a specification the repository does not hold.
"""

import re
import subprocess
import sys
import typing

import pytest
from support.paths import ROOT

pytestmark = pytest.mark.unit

PAGES = sorted((ROOT / "docs").rglob("*.md"))
TEXTS = {path: path.read_text(encoding="utf-8") for path in [ROOT / "README.md", *PAGES]}


def test_the_site_builds_offline_with_warnings_as_errors(tmp_path):
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q", str(ROOT / "docs"),
                           str(tmp_path / "html")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    built = (tmp_path / "html" / "contributing" / "tests.html").read_text()
    assert "{{" not in built and "buggy submissions" in built


def test_no_page_writes_a_count_the_code_gives():
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    from agstate_docs import substitutions

    counts = substitutions()
    for key, words in (("mutants", "buggy|mutant"), ("hostile", "hostile"), ("notebooks", "notebooks"), ("points", "points")):
        for path in PAGES:
            assert not re.search(rf"(?<![\w.]){counts[key]}\s+({words})", TEXTS[path]), \
                f"{path.relative_to(ROOT)} writes {counts[key]} (the {key}); write {{{{ {key} }}}}"


def test_the_learners_pages_read_as_files_hold_no_substitution():
    """The README links the learner's pages as files (GitHub, an editor, the kit's reader): a MyST substitution would
    show as ``{{ notebooks }}`` there, so those pages say what they need in words (learner-F)."""
    for path in sorted((ROOT / "docs" / "learner").glob("*.md")):
        assert "{{" not in TEXTS[path], f"{path.relative_to(ROOT)} holds a substitution, which shows raw read as a file"


# Named by a contract written before its code (as docs/reference/part-f.md named Part F's files): each leaves this
# set, by this test's own demand, the day it exists.
PLANNED: set[str] = set()


def test_every_file_named_exists():
    named = set()
    for text in TEXTS.values():
        named |= set(re.findall(r"(?<![\w/.-])((?:grader|tests|benchmarks|solutions|docs|agstate|notebooks)/[\w./-]*\w)", text))
    missing = [path for path in sorted(named) if "<" not in path and not path.startswith("docs/_build")
               and not (ROOT / path).exists() and not list(ROOT.glob(path))]
    assert not [path for path in PLANNED if (ROOT / path).exists()], "a planned file exists now: take it out of PLANNED"
    assert set(missing) <= PLANNED, f"named but not in the repository: {sorted(set(missing) - PLANNED)}"


def test_the_readmes_links_resolve():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", TEXTS[ROOT / "README.md"])
    local = [link for link in links if "://" not in link]
    assert local and all((ROOT / link).exists() for link in local), [link for link in local if not (ROOT / link).exists()]
    assert len(TEXTS[ROOT / "README.md"].splitlines()) <= 70, "the README is one page: the rest belongs in docs/"


def test_the_report_page_names_every_field():
    from grader.reports import report

    page = TEXTS[ROOT / "docs" / "reference" / "report.md"]
    for shape in (report.Report, report.TaskResult, report.RuleVerdict):
        for field in typing.get_type_hints(shape):
            assert f"`{field}`" in page, f"docs/reference/report.md does not name {shape.__name__}.{field}"
    for status in report.STATUSES:
        assert f"`{status}`" in page


def test_the_environment_page_names_every_variable_read():
    read = set()
    for path in [*ROOT.glob("grader/**/*.py"), *ROOT.glob("solutions/agstate/*.py"), *ROOT.glob("tests/*.py"),
                 *ROOT.glob("tests/support/*.py")]:
        read |= set(re.findall(r"\bAGSTATE_[A-Z_]+\b", path.read_text(encoding="utf-8")))
    page = TEXTS[ROOT / "docs" / "reference" / "environment.md"]
    assert sorted(name for name in read if f"`{name}`" not in page) == []


def test_nothing_cites_a_specification_the_repository_does_not_hold():
    cited = [str(path.relative_to(ROOT)) for path in [*ROOT.glob("grader/**/*.py"), *ROOT.glob("tests/**/*.py"), *PAGES,
                                                      ROOT / "README.md"] if ("LAB" + "-SPEC") in path.read_text(encoding="utf-8")]
    assert cited == []


def entries_of_grader() -> set[str]:
    """The top-level entries of ``grader/``: its modules, and its folders that hold more than Python's bytecode cache."""
    return {path.name for path in (ROOT / "grader").iterdir()
            if path.is_file() or any(inside.name != "__pycache__" for inside in path.iterdir())} - {"__pycache__"}


def test_the_layout_page_has_a_row_for_each_entry_of_grader_and_no_other():
    section = TEXTS[ROOT / "docs" / "contributing" / "layout.md"].split("## grader/, by side and by reader", 1)[1]
    first_cells = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    named = {name.split("/")[0] for cell in first_cells for name in re.findall(r"`([^`]+)`", cell)}  # parts/<part>/: parts
    entries = entries_of_grader()
    assert sorted(entries - named) == [], "docs/contributing/layout.md has no row for these entries of grader/"
    assert sorted(named - entries) == [], "docs/contributing/layout.md has a row for these, which grader/ no longer holds"



def test_the_support_package_says_what_each_of_its_modules_is_for_and_no_test_imports_conftest():
    """``tests/support/__init__.py`` has a line for each module of the tests' helpers and no other, as the layout page
    has a row for each entry of ``grader/``; ``conftest.py`` holds fixtures and hooks, which no test imports."""
    import support

    listed = set(re.findall(r"^- ``(\w+)``", support.__doc__, re.M))
    modules = {path.stem for path in (ROOT / "tests" / "support").glob("*.py")} - {"__init__"}
    assert sorted(modules - listed) == [], "tests/support/__init__.py does not list these modules"
    assert sorted(listed - modules) == [], "tests/support/__init__.py lists these, which tests/support/ no longer holds"
    importing = [str(path.relative_to(ROOT)) for path in ROOT.glob("tests/**/*.py")
                 if re.search(r"^\s*(from conftest import|import conftest)", path.read_text(encoding="utf-8"), re.M)]
    assert importing == [], "import the helper from tests/support/, not from conftest.py"

def test_each_deprecated_name_says_the_day_it_goes(capsys):
    """Every row of the deprecations page, and what the old name's users read: its help, its docstring, its page."""
    import grader.autograde
    import grader.lab_kernel
    from grader import cli
    from grader.course import cli as course_cli
    from grader.course.autograde import ScoreChecks

    with pytest.raises(SystemExit):
        course_cli.parser().parse_args(["init", "--help"])
    said = {
        "agstate-grade --lab": cli.parser().format_help(),
        "agstate-course init --lab": capsys.readouterr().out,
        '"lab"': TEXTS[ROOT / "docs" / "reference" / "report.md"]
                 + next(line for line in (ROOT / "grader" / "reports" / "report.py").read_text().splitlines() if "lab: str" in line),
        "ScoreChecks.labs": ScoreChecks.class_traits()["labs"].help,
        "grader.autograde": grader.autograde.__doc__,
        "grader.lab_kernel": grader.lab_kernel.__doc__,
    }
    page = TEXTS[ROOT / "docs" / "contributing" / "deprecations.md"]
    rows = dict(re.findall(r"^\| `([^`]+)`[^|]*\|[^|]*\|[^|]*\| (\d{4}-\d{2}-\d{2}) \|$", page, re.M))
    assert sorted(rows) == sorted(said), "a deprecated name is missing from docs/contributing/deprecations.md, or from this test"
    for name, day in rows.items():
        assert day in " ".join(said[name].split()), f"{name} does not say that it is removed on {day}"
