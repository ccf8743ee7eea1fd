"""The part layer: one list of parts, descriptors as data, and a registry that refuses parts that do not add up."""

import dataclasses

import pytest

from grader.catalog import NAMES, Part, TaskSpec, descriptors
from grader.child import probes
from grader.engine.registry import MODULES, PARTS, TASKS, RegistryError, check_parts, task, tasks_of

pytestmark = pytest.mark.unit


def test_every_part_is_a_folder_of_the_same_shape():
    """The same files in every part, rules in one module per notebook that grades, each file short enough to read."""
    from support.paths import ROOT

    for part in descriptors():
        folder = ROOT / "grader" / "parts" / part.name
        assert {p.name for p in folder.glob("*.py")} >= {"__init__.py", "strategies.py", "model.py", "checks.py"}, part.name
        # Its scenarios run in the grading process (scenarios.py); a part not moved there yet has them in probes/.
        assert (folder / "scenarios.py").is_file() or (folder / "probes" / "__init__.py").is_file(), part.name
        assert not (folder / "rules.py").exists(), f"{part.name}: rules go in rules/, one module per notebook"
        by_notebook = {nb.removesuffix(".ipynb").split("_", 1)[1] + ".py" for nb in part.notebooks}
        assert {p.name for p in (folder / "rules").glob("*.py")} == {"__init__.py"} | by_notebook, part.name
        for path in [*folder.glob("*.py"), *(folder / "rules").glob("*.py"), *(folder / "probes").glob("*.py")]:
            lines = len(path.read_text().splitlines())
            assert lines <= 250, f"{path.relative_to(ROOT)} has {lines} lines; split it (the house guideline is ~200)"


def test_the_registry_is_the_descriptors():
    assert [part.name for part in PARTS] == list(NAMES) == list(MODULES)
    assert list(TASKS) == [spec.id for part in descriptors() for spec in part.tasks]
    for part in PARTS:
        assert [t.id for t in tasks_of(part.name)] == [spec.id for spec in part.tasks]
        assert all(TASKS[spec.id].rules for spec in part.tasks), part.name


def test_probes_and_scenarios_come_from_every_parts_folder_and_the_generic_ones():
    """The learner's process serves generic calls (child.generic, child.remote) and a part's probes/; the scenarios
    (engine.scenarios, a part's scenarios.py and scenarios_<topic>.py) run in the grading process. A name is one or
    the other, never both."""
    from grader.engine.remote import SCENARIOS

    probes.load()
    everything = [*probes.PROBES.values(), *SCENARIOS.values()]
    parts = {fn.__module__.split(".")[2] if fn.__module__.startswith("grader.parts.") else fn.__module__ for fn in everything}
    assert parts == {"grader.child.generic", "grader.child.remote", "grader.engine.scenarios", *NAMES}
    assert all(fn.__module__.startswith((f"grader.parts.{fn.__module__.split('.')[2]}.probes", "grader.child."))
               for fn in probes.PROBES.values())
    assert all(fn.__module__ == "grader.engine.scenarios" or fn.__module__.rsplit(".", 1)[-1].split("_")[0] == "scenarios"
               for fn in SCENARIOS.values())
    assert not set(probes.PROBES) & set(SCENARIOS)


def test_what_counts_as_calls_is_what_the_call_server_registers():
    """A report's ``integrity`` counts as the learner's calls alone exactly the call server's operations and the generic
    probes (``grader.engine.remote.CALLS``): a new operation there is classified on purpose. A part's ``one_call``
    names operations of its own ``probes/``; every other name a task asks is a probe, and says so."""
    from grader.engine.remote import CALLS

    probes.load()
    generic = {name for name, fn in probes.PROBES.items() if fn.__module__ in ("grader.child.remote", "grader.child.generic")}
    assert CALLS == generic
    for part in PARTS:
        assert set(part.one_call) <= {name for name, fn in probes.PROBES.items()
                                      if fn.__module__.startswith(f"grader.parts.{part.name}.probes")}, part.name


def _part(name="demo", tasks=((".a", 60, "01_a.ipynb"), (".b", 40, "02_b.ipynb"))):
    return Part(name, "Z", "Demo", name, "00_demo.ipynb", tuple(TaskSpec(name + tid, points, nb, "s") for tid, points, nb in tasks))


@pytest.mark.parametrize("parts, said", [
    ([_part(tasks=((".a", 60, "01_a.ipynb"), (".b", 30, "02_b.ipynb")))], "add up to 90 points, not 100"),
    ([_part(tasks=((".a", 60, "02_a.ipynb"), (".b", 40, "01_b.ipynb")))], "not in notebook order"),
    ([_part(tasks=((".a", 60, "01_a.ipynb"), (".a", 40, "02_b.ipynb")))], "'demo.a' is declared twice"),
    ([_part(), _part()], "two parts are named 'demo'"),
    ([dataclasses.replace(_part(), tasks=(TaskSpec("other.a", 100, "01.ipynb", "s"),))], "must be named demo.<task>"),
])
def test_parts_that_do_not_add_up_are_refused(parts, said):
    with pytest.raises(RegistryError, match=said.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        check_parts(parts)


def test_the_real_parts_add_up():
    check_parts(PARTS)


def test_rules_attach_only_to_declared_tasks_and_never_twice():
    with pytest.raises(RegistryError, match="not declared"):
        task("state.nope")
    dedupe = TASKS["state.dedupe"]
    with pytest.raises(RegistryError, match="two rules say"):
        dedupe.rule(dedupe.rules[0].sentence)(lambda check: None)
    assert len({rule.sentence for rule in dedupe.rules}) == len(dedupe.rules)


def test_probe_names_are_unique():
    probes.load()
    name = next(iter(probes.PROBES))

    def impostor(context):
        return None

    impostor.__name__ = name
    with pytest.raises(ValueError, match="defined twice"):
        probes.probe(impostor)
    assert probes.PROBES[name] is not impostor


def test_every_probe_says_which_learner_call_it_stands_for():
    """A timeout or crash names the learner's call, never a probe (``board_hostile``, ``refund_orders``)."""
    from grader.engine.checking import describe
    from grader.engine.remote import SCENARIOS

    probes.load()
    for name, fn in [*probes.PROBES.items(), *SCENARIOS.items()]:
        if fn.__module__ in ("grader.child.generic", "grader.child.remote", "grader.engine.scenarios") or getattr(fn, "handles", False):
            continue  # the engine names their calls itself (describe); an operation is asked by a scenario, which names it
        part = fn.__module__.split(".")[2]
        declared = next(p for p in PARTS if p.name == part).calls
        assert name in declared, f"{name} ({fn.__module__}) has no entry in its part's calls"
    for part in PARTS:
        assert set(part.calls) <= set(probes.PROBES) | set(SCENARIOS), f"{part.name}: calls names probes that do not exist"
    assert describe("board_hostile", ()) == "board_reducer(current, <a hostile update>)"
    assert describe("channels", ("NaiveState",)) == "StateGraph(NaiveState)"
    assert describe("call", ("merge_sources", [[], ["a"]])) == "merge_sources([], ['a'])"
    assert describe("attr", ("MAX_MESSAGES",), "agstate/messages.py") == "reading MAX_MESSAGES from agstate/messages.py"
