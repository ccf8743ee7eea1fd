"""Correct variants the docs allow get full marks: the grader checks what the docs say, not one way to write it.

The mutation corpora prove each bug loses its marks; these prove that a
correct solution written another way loses none (a rule that is stricter than
its sentence is a grader bug, as a rule that misses a bug is).
"""

import pytest
from support.paths import REFERENCE
from support.submissions import apply_edits, build_submission

from grader.engine.registry import tasks_of
from grader.engine.runner import grade_submission

pytestmark = pytest.mark.part

VARIANTS = [
    # (name, module, edits, part): each is correct by the module's docstrings
    ("primary_key_seq_first", "events.py",
     [("ts REAL NOT NULL, PRIMARY KEY (task_id, seq))", "ts REAL NOT NULL, PRIMARY KEY (seq, task_id))")], "events"),
    # LangGraph's own ToolNode answers the tool calls, told to turn a raising tool into an error ToolMessage
    ("tool_node_for_the_tools", "messages.py",
     [('    graph.add_node("tools", run_tools)\n',
       '    from langgraph.prebuilt import ToolNode\n\n'
       '    graph.add_node("tools", ToolNode(list(tools.values()), handle_tool_errors=True))\n')], "messages"),
    ("stream_with_an_rlock", "branches.py",
     [("        self._lock = threading.Lock()\n", "        self._lock = threading.RLock()\n")], "branches"),
]


@pytest.mark.parametrize(("name", "module", "edits", "part"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_a_correct_variant_gets_full_marks(name, module, edits, part, tmp_path):
    source = apply_edits((REFERENCE / module).read_text(encoding="utf-8"), edits, f"variant {name!r}", module)
    submission = build_submission(tmp_path / name, modules={module: source})
    report = grade_submission(str(submission), [t.id for t in tasks_of(part)], 5, examples=40, timeout=20)
    assert {t["id"]: t["feedback"] for t in report["tasks"] if t["status"] != "passed"} == {}
