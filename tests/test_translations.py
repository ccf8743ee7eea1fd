"""The notebooks and the learner's pages in Spanish, Chinese and Russian: complete, generated from one source, the same
code as the English, a changed English segment named and refused, and one notebook run per language beside the English.

Costs: the unit tests read the 114 committed translated notebooks and the masters' catalogs (a few seconds in all); the
stale-release test releases one master in a scratch root (seconds); the slow test runs notebook 01 four times, once per
language (about 30 s: a kernel each, the check graded once each).
"""

import io
import json
import os
import re
import shutil
import tokenize

import nbformat
import pytest
from babel.messages.pofile import read_po
from support.paths import ROOT, SOLUTIONS

from grader import i18n
from grader.authoring import release, translated_docs, translations
from grader.authoring.translations import TARGETS, _reflow

pytestmark = pytest.mark.unit

ENGLISH = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_every_segment_of_every_master_and_page_has_a_current_translation():
    assert [str(problem) for problem in translations.problems()] == []
    assert [str(problem) for problem in translated_docs.translated_pages()[1]] == []


def _code(cell_source: str) -> tuple[list, int]:
    """A code cell's tokens without its comments, and its number of lines (a traceback's line numbers)."""
    tokens = [(token.type, token.string) for token in tokenize.generate_tokens(io.StringIO(cell_source).readline)
              if token.type not in (tokenize.COMMENT, tokenize.NL)]
    return tokens, cell_source.count("\n")


@pytest.mark.parametrize("lang", TARGETS)
def test_each_translated_notebook_runs_the_english_code(lang):
    assert sorted(path.name for path in (ROOT / "notebooks" / lang).glob("*.ipynb")) == [path.name for path in ENGLISH]
    for english in ENGLISH:
        theirs = json.loads((ROOT / "notebooks" / lang / english.name).read_text())["cells"]
        ours = json.loads(english.read_text())["cells"]
        assert [cell["cell_type"] for cell in theirs] == [cell["cell_type"] for cell in ours], english.name
        for number, (mine, translated) in enumerate(zip(ours, theirs), 1):
            nbgrader = mine["metadata"].get("nbgrader", {})
            assert {k: v for k, v in translated["metadata"].get("nbgrader", {}).items() if k != "checksum"} == \
                   {k: v for k, v in nbgrader.items() if k != "checksum"}, (english.name, number)
            if mine["cell_type"] == "code":
                assert _code("".join(translated["source"])) == _code("".join(mine["source"])), (lang, english.name, number)
                if nbgrader.get("locked"):  # a graded cell is the same cell: nbgrader's checksum holds in every language
                    assert translated["metadata"]["nbgrader"]["checksum"] == nbgrader["checksum"]
            elif not nbgrader.get("solution") and re.search(r"[^\W\d_]{4}", "".join(mine["source"])):
                assert translated["source"] != mine["source"], (lang, english.name, number)  # prose, translated


def test_a_comment_keeps_its_number_of_lines_whatever_its_translation():
    assert _reflow("一二三四五六七八九十，这是一个很长的注释，需要分成两行。", 2) == \
        ["一二三四五六七八九十，这是一", "个很长的注释，需要分成两行。"]
    assert _reflow("uno dos tres cuatro cinco seis siete ocho nueve diez once doce", 3) == \
        ["uno dos tres cuatro", "cinco seis siete ocho", "nueve diez once doce"]
    assert _reflow("a\nb\nc", 1) == ["a b c"] and _reflow("a\nb", 2) == ["a", "b"]


def test_a_page_is_its_blocks_joined_again():
    for page in translated_docs.PAGES:
        text = (ROOT / "docs" / "learner" / f"{page}.md").read_text()
        assert "".join(block + separator for block, separator in translated_docs.blocks(text)) == text
    assert translated_docs.blocks("a\nb\n\n\n```x\n\ny\n```\n") == [("a\nb", "\n\n\n"), ("```x\n\ny\n```", "\n")]


def _scratch_root(tmp_path):
    """A lab with one master, 01_overwrite, its catalogs and the learner's pages: enough to release."""
    root = tmp_path / "lab"
    shutil.copytree(SOLUTIONS / "agstate", root / "solutions" / "agstate")
    (root / "solutions" / "notebooks").mkdir(parents=True)
    shutil.copy(SOLUTIONS / "notebooks" / "01_overwrite.py", root / "solutions" / "notebooks")
    for lang in TARGETS:
        (root / "solutions" / "notebooks" / "i18n" / lang).mkdir(parents=True)
        shutil.copy(SOLUTIONS / "notebooks" / "i18n" / lang / "01_overwrite.po", root / "solutions" / "notebooks" / "i18n" / lang)
    shutil.copytree(ROOT / "docs" / "learner", root / "docs" / "learner")
    return root


def test_a_changed_english_cell_is_named_stale_refused_and_merged_fuzzy_with_its_old_translation(tmp_path, monkeypatch, capsys):
    root = _scratch_root(tmp_path)
    master = root / "solutions" / "notebooks" / "01_overwrite.py"
    old = "Run it. The trace should list three nodes; it lists one."
    master.write_text(master.read_text().replace(old, "Run it. The trace should list three nodes; it lists only one.")
                      .replace("# ## Predict first", "# A new paragraph, never translated.\n\n# %% [markdown]\n# ## Predict first"))
    found = {(p.lang, p.segment.kind, p.state) for p in translations.problems(root)}
    assert found == {(lang, "markdown", state) for lang in TARGETS for state in ("stale", "untranslated")}
    said = [str(p) for p in translations.problems(root, langs=("es",))]
    assert "es/01_overwrite.ipynb cell 9 (markdown): stale: Run it. The trace should list three nodes; it lists only one." in said

    monkeypatch.setattr(release, "ROOT", root)
    assert release.main(["--check"]) == 1  # refused before anything is compared or written
    assert "es/01_overwrite.ipynb cell 9 (markdown): stale" in capsys.readouterr().err
    assert release.main(["--allow-stale"]) == 0  # the English text in its place, said
    spanish = json.loads((root / "notebooks" / "es" / "01_overwrite.ipynb").read_text())
    assert "it lists only one." in "".join(spanish["cells"][8]["source"])
    assert "Ejecútalo" not in "".join(spanish["cells"][8]["source"])

    translations.update(root, langs=("es",))  # Babel's merge: fuzzy, the previous English and the old translation kept
    merged = translations.catalog_path("es", "01_overwrite", root)
    changed = read_po(merged.open("rb"), locale="es").get("Run it. The trace should list three nodes; it lists only one.")
    assert changed.fuzzy and changed.string.startswith("Ejecútalo")
    assert f'#, fuzzy\n#| msgid "{old}"\nmsgid "Run it. The trace should list three nodes; it lists only one."' in merged.read_text()
    assert {p.state for p in translations.problems(root, langs=("es",))} == {"stale", "untranslated"}
    written = merged.read_bytes()
    translations.update(root, langs=("es",))  # read back (the #| line as the previous English, not a comment): the same
    assert merged.read_bytes() == written

    master.write_text(master.read_text().replace("it lists only one.", "it lists one."))  # the English comes back:
    translations.update(root, langs=("es",))  # its translation too, still fuzzy until a translator confirms it
    assert [p.state for p in translations.problems(root, langs=("es",))] == ["untranslated", "stale"]
    back = read_po(merged.open("rb"), locale="es").get(old)
    assert back.fuzzy and back.string.startswith("Ejecútalo")
    (root / "solutions" / "notebooks" / "01_overwrite.py").unlink()  # a master removed: its catalogs stay, unread
    assert translations.problems(root) == []


def _glossary() -> list[tuple[str, dict[str, list[str]]]]:
    """The glossary's rows (docs/contributing/translations.md): an English term, and per language the forms accepted."""
    page = (ROOT / "docs" / "contributing" / "translations.md").read_text()
    table = page.split("## The glossary", 1)[1].split("\n\n")[2]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in table.splitlines()[2:]]
    return [(row[0], {lang: [form.strip() for form in cell.split(" / ")] for lang, cell in zip(TARGETS, row[1:])})
            for row in rows]


def _prose(text: str) -> str:
    """What a translator translates of a segment: no code, no quoted output, no placeholder."""
    return re.sub(r"```.*?```|`[^`]*`|\"[^\"]*\"|\{\w*\}", "", text, flags=re.S)


@pytest.mark.parametrize("lang", TARGETS)
def test_every_translation_uses_the_glossary_terms(lang):
    catalogs = [*(ROOT / "solutions" / "notebooks" / "i18n" / lang).glob("*.po"), *(ROOT / "docs" / "learner" / "i18n" / lang).glob("*.po"),
                ROOT / "grader" / "locale" / lang / "LC_MESSAGES" / "agstate.po"]
    glossary = _glossary()
    assert len(glossary) >= 15
    missing = []
    for path in catalogs:
        for message in read_po(path.open("rb"), locale=lang):
            if not message.id or isinstance(message.id, tuple):
                continue
            for term, forms in glossary:
                if re.search(rf"\b{re.escape(term)}(s|es)?\b", _prose(message.id), re.I) and \
                        not any(form.lower() in _prose(message.string).lower() for form in forms[lang]):
                    missing.append(f"{path.name}: {term!r} not said as {forms[lang]}: {message.string[:80]!r}")
    assert missing == []


@pytest.mark.parametrize("lang", TARGETS)
def test_a_translated_notebook_of_the_repository_grades_the_repositorys_workspace(lang, monkeypatch):
    from grader.notebook.check import workspace

    monkeypatch.delenv("AGSTATE_WORKSPACE", raising=False)
    monkeypatch.chdir(ROOT / "notebooks" / lang)  # a kernel's folder: notebooks/es/, two below agstate/
    assert workspace() == ROOT


def test_the_grader_and_the_lab_name_the_same_languages():
    assert i18n.LANGUAGES == ("en", *TARGETS)
    assert {path.name for path in (ROOT / "notebooks").iterdir() if path.is_dir()} >= set(TARGETS)
    assert {path.name for path in (ROOT / "docs" / "learner").iterdir() if path.is_dir()} == {*TARGETS, "i18n"}


def _outputs(path, lang, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(SOLUTIONS), str(ROOT)]))
    monkeypatch.setenv("AGSTATE_WORKSPACE", str(SOLUTIONS))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("AGSTATE_LANG", lang)
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    return [cell.get("outputs", []) for cell in notebook.cells if cell.cell_type == "code"]


def _same(output: dict) -> dict:
    """An output as every run gives it: a widget's model id and a scorecard's kernel seed and words left out."""
    data = dict(output.get("data", {}))
    if "application/vnd.jupyter.widget-view+json" in data:
        data["application/vnd.jupyter.widget-view+json"] = {**data["application/vnd.jupyter.widget-view+json"], "model_id": ""}
    if "<table>" in data.get("text/html", ""):
        data = {"scorecard": re.findall(r"[✅❌⬜💥⏱💀🛠]|\d+ / \d+", data["text/html"])}
    return {**output, "data": data} if "data" in output else output


def _cell(outputs: list) -> list:
    """A cell's outputs as every run gives them: a stream's text in one piece, however the kernel flushed it."""
    joined = []
    for output in map(_same, outputs):
        if joined and output.get("output_type") == "stream" and joined[-1].get("output_type") == "stream" \
                and joined[-1]["name"] == output["name"]:
            joined[-1] = {**joined[-1], "text": joined[-1]["text"] + output["text"]}
        else:
            joined.append(output)
    return joined


@pytest.mark.slow
@pytest.mark.parametrize("lang", TARGETS)
def test_notebook_01_executes_in_each_language_with_the_english_outputs(lang, monkeypatch):
    english = _outputs(ROOT / "notebooks" / "01_overwrite.ipynb", "en", monkeypatch)
    translated = _outputs(ROOT / "notebooks" / lang / "01_overwrite.ipynb", lang, monkeypatch)
    assert [_cell(outputs) for outputs in translated] == [_cell(outputs) for outputs in english]
    scorecards = [o["data"]["text/html"] for cell in translated for o in cell if "<table>" in o.get("data", {}).get("text/html", "")]
    points = i18n.translation(lang).gettext("points")
    assert scorecards and all(f"<th>{points}</th>" in card and "✅" in card for card in scorecards)
