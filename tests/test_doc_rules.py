"""Every promise the learner's docs make is checked by a grader rule (tests/doc_rules/: the table)."""

import importlib

import pytest
from doc_rules import Checked, Explains, documented

from grader.parts import descriptors
from grader.tasks import TASKS

PARTS = descriptors()  # every part has its table: a new part's docs are audited from its first commit


@pytest.mark.parametrize("part", PARTS, ids=lambda part: part.name)
def test_every_documented_sentence_is_in_the_table(part):
    table = importlib.import_module(f"doc_rules.{part.name}").TABLE
    said = documented(part.module)
    missing = [key for key in said if key not in table]
    assert not missing, "sentences of the docs the table does not list (checked(...) or explains(...)):\n" + \
        "\n".join(f"    ({where!r}, {sentence!r})" for where, sentence in missing)
    gone = [key for key in table if key not in said]
    assert not gone, f"the table lists sentences the docs no longer say: {gone}"


@pytest.mark.parametrize("part", PARTS, ids=lambda part: part.name)
def test_every_checked_sentence_names_a_rule_the_grader_has(part):
    table = importlib.import_module(f"doc_rules.{part.name}").TABLE
    for key, verdict in table.items():
        assert isinstance(verdict, (Checked, Explains)), key
        if isinstance(verdict, Checked):
            assert verdict.task in TASKS and verdict.task.startswith(f"{part.name}."), (key, verdict)
            assert verdict.rule in [rule.sentence for rule in TASKS[verdict.task].rules], (key, verdict)
        else:
            assert verdict.why.strip(), key
