"""Every promise the learner's docs make is checked by a grader rule (tests/doc_rules/: the table).

The docs are the exercise module's docstrings (``TABLE``) and the "Your
exercise" sections of the part's notebooks (``NOTEBOOKS``).
"""

import importlib

import pytest
from doc_rules import Checked, Explains, documented, exercised

from grader.catalog import descriptors
from grader.engine.registry import TASKS

pytestmark = pytest.mark.unit

PARTS = descriptors()  # every part has its table: a new part's docs are audited from its first commit
DOCS = [(part, "TABLE", lambda part: documented(part.module)) for part in PARTS] + \
       [(part, "NOTEBOOKS", lambda part: exercised(part.name)) for part in PARTS]


def _ids(doc):
    return f"{doc[0].name}-{doc[1]}"


@pytest.mark.parametrize("doc", DOCS, ids=_ids)
def test_every_documented_sentence_is_in_the_table(doc):
    part, table_name, said_by = doc
    table = getattr(importlib.import_module(f"doc_rules.{part.name}"), table_name)
    said = said_by(part)
    assert said, f"no sentences found for {table_name} of part {part.name}: the reading of the docs is broken"
    missing = [key for key in said if key not in table]
    assert not missing, f"sentences of the docs {table_name} does not list (checked(...) or explains(...)):\n" + \
        "\n".join(f"    ({where!r}, {sentence!r})" for where, sentence in missing)
    gone = [key for key in table if key not in said]
    assert not gone, f"{table_name} lists sentences the docs no longer say: {gone}"


@pytest.mark.parametrize("doc", DOCS, ids=_ids)
def test_every_checked_sentence_names_a_rule_the_grader_has(doc):
    part, table_name, _ = doc
    table = getattr(importlib.import_module(f"doc_rules.{part.name}"), table_name)
    for key, verdict in table.items():
        assert isinstance(verdict, (Checked, Explains)), key
        if isinstance(verdict, Checked):
            assert verdict.task in TASKS and verdict.task.startswith(f"{part.name}."), (key, verdict)
            assert verdict.rule in [rule.sentence for rule in TASKS[verdict.task].rules], (key, verdict)
        else:
            assert verdict.why.strip(), key


def test_a_notebook_exercise_is_read_sentence_by_sentence():
    """The reading itself: numbered and bulleted items are their own sentences, code cells are skipped."""
    said = dict.fromkeys(sentence for notebook, sentence in exercised("state") if notebook == "03_dedupe")
    assert "- `old` may be `None`; a bare `str` is one item;" in said
    assert not any("check(" in sentence for sentence in said)  # the check cell is code
    numbered = [sentence for notebook, sentence in exercised("state") if notebook == "05_windows"]
    assert any(sentence.startswith("2. **`windowed(n)`**") for sentence in numbered), numbered
