"""What the documentation says of the lab, taken from the lab: counts, tables, command lines, import contracts.

A page never writes a count the code can give: ``substitutions`` gives
them to MyST (``{{ mutants }}``), and four directives render from the
grader itself:

- ``{agstate-parts}``: the parts, their notebooks, modules and checks;
- ``{agstate-tour}``: the parts at a glance and each notebook, from the notebooks' own headers;
- ``{agstate-tasks}``: every task, its points, notebook and summary;
- ``{agstate-usage} PROG``: a command line's ``--help``;
- ``{agstate-contracts}``: the import contracts of ``pyproject.toml``.
"""

import argparse
import tomllib
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parent.parent.parent

__all__ = ["substitutions", "setup"]


def _corpora() -> dict:
    from support.corpus import Corpus  # tests/, on the path (conf.py)

    from grader.catalog import PARTS

    return {part.letter: Corpus(part.name) for part in PARTS}


def _manual_points() -> dict:
    from grader.authoring.assignment import MANUAL_POINTS, part_of, source_notebook

    points: dict = {}
    for master in sorted((ROOT / "solutions" / "notebooks").glob("[0-9][0-9]_*.py")):
        notebook = source_notebook(master)
        for cell in notebook.cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("grade") and meta.get("solution"):
                points[part_of(notebook)] = points.get(part_of(notebook), 0) + meta["points"] / MANUAL_POINTS
    return points


def substitutions() -> dict:
    """Every count the pages state, from the code: corpora, notebooks, tasks, points."""
    from hostile.cases import CASES

    from grader.catalog import PARTS, TASKS

    corpora = _corpora()
    notebooks = sorted(path.name for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    manual = _manual_points()
    autograded = sum(spec.max_score for spec in TASKS.values())
    found = {
        "mutants": str(sum(len(corpus.mutants) for corpus in corpora.values())),
        "mutants_by_part": ", ".join(f"{len(corpus.mutants)} for part {letter}" for letter, corpus in corpora.items()),
        "hostile": str(len(CASES)),
        "parts": str(len(PARTS)),
        "tasks": str(len(TASKS)),
        "notebooks": str(len(notebooks)),
        "autograded": f"{autograded:g}",
        "manual_by_part": ", ".join(f"{manual.get(part.name, 0):g} in part {part.letter}" for part in PARTS),
        "manual": f"{sum(manual.values()):g}",
        "points": f"{autograded + sum(manual.values()):g}",
    }
    for part in PARTS:
        found[f"points_{part.name}"] = f"{sum(spec.max_score for spec in part.tasks):g}"
    return found


def _markdown(directive: SphinxDirective, text: str) -> list:
    """``text`` (MyST markdown) parsed in place of the directive."""
    container = nodes.container()
    directive.state.nested_parse(StringList(text.splitlines()), directive.content_offset, container)
    return container.children


class Parts(SphinxDirective):
    """The parts: letter and title, the notebooks each spans, the module the learner completes, its check."""

    def run(self):
        from grader.catalog import PARTS, notebook_span

        rows = ["| part | notebooks | you complete | check |", "|---|---|---|---|"]
        rows += [f"| {part.letter}. {part.title} | `{notebook_span(part.name)}` | `agstate/{part.module}.py` | "
                 f"`check(\"{part.name}\")` |" for part in PARTS]
        return _markdown(self, "\n".join(rows))


def _masters(lang: str = "en") -> list:
    """The master notebooks, in order, with what each header says of it (``agstate:`` in the jupytext header), in
    ``lang`` (the header's translation, ``grader.authoring.translations``)."""
    from grader.authoring.assignment import check_target, source_notebook
    from grader.authoring.translations import translate

    found = []
    for master in sorted((ROOT / "solutions" / "notebooks").glob("[0-9][0-9]_*.py")):
        notebook = source_notebook(master) if lang == "en" else translate(source_notebook(master), lang, master.stem)[0]
        checks = [target for target in map(check_target, notebook.cells) if target]
        found.append((master.stem, notebook.metadata.get("agstate", {}), checks))
    return found


class Tour(SphinxDirective):
    """The parts at a glance, then each part notebook by notebook: what each notebook's header says it teaches
    (``:lang: es``: in that language, as a translated learner page asks)."""

    option_spec = {"lang": directives.unchanged}

    def run(self):
        from grader.catalog import PARTS, notebook_span
        from grader.i18n import translation

        lang = self.options.get("lang", "en")
        say = translation(lang).gettext
        masters = _masters(lang)
        said = {meta["part"]: meta for _, meta, _ in masters if "part_pitfalls" in meta}
        text = [f"| {say(TOUR_HEADS[0])} | {say(TOUR_HEADS[1])} | {say(TOUR_HEADS[2])} | {say(TOUR_HEADS[3])} |",
                "|---|---|---|---|"]
        text += [f"| {part.letter}. {say(part.title)} | `{notebook_span(part.name)}` | `agstate/{part.module}.py` | "
                 f"{_cell(said.get(part.name, {}).get('part_pitfalls', ''))} |" for part in PARTS]
        for part in PARTS:
            text += ["", f"**{say(TOUR_HEADS[4]).format(letter=part.letter)}**", ""]
            if said.get(part.name, {}).get("part_notes"):
                text += [said[part.name]["part_notes"], ""]
            text += [f"| {say(TOUR_HEADS[5])} | {say(TOUR_HEADS[6])} | {say(TOUR_HEADS[7])} | {say(TOUR_HEADS[8])} |",
                     "|---|---|---|---|"]
            for name, meta, checks in masters:
                if meta.get("part") == part.name:
                    shown = ", ".join(f"`{target}`" if "." in target else f'`check("{target}")`' for target in checks)
                    text.append(f"| `{name}` | {_cell(meta.get('pitfall', ''))} | {_cell(meta.get('exercise', ''))} | "
                                f"{shown or '—'} |")
        return _markdown(self, "\n".join(text))


def N_(text: str) -> str:  # marks the tour's words for the grader's catalogs (babel.cfg reads this file too)
    return text


TOUR_HEADS = (N_("part"), N_("notebooks"), N_("you complete"), N_("what goes wrong without it"),
              N_("Part {letter}, notebook by notebook"), N_("notebook"), N_("pitfall reproduced"), N_("exercise"),
              N_("check"))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


class Tasks(SphinxDirective):
    """Every task: its id (public, stable), points, notebook and what it checks."""

    def run(self):
        from grader.catalog import PARTS, tasks_of

        rows = ["| task | points | notebook | what it checks |", "|---|---|---|---|"]
        for part in PARTS:
            rows += [f"| `{spec.id}` | {spec.max_score:g} | `{spec.notebook}` | {spec.summary.replace('|', '/')} |"
                     for spec in tasks_of(part.name)]
        return _markdown(self, "\n".join(rows))


def _parser(prog: str):
    if prog == "agstate-grade":
        from grader.cli import parser
    elif prog == "agstate-grade report":
        from grader.reports.class_page import parser
    elif prog == "agstate-course":
        from grader.course.cli import parser
    elif prog == "agstate-workspace":
        from grader.authoring.workspace import parser
    else:
        raise ValueError(f"no command line named {prog!r}")
    return parser()


class Usage(SphinxDirective):
    """A command line's ``--help``, as its parser prints it (80 columns)."""

    required_arguments = 1
    final_argument_whitespace = True

    def run(self):
        import os

        os.environ["COLUMNS"] = "100"
        built = _parser(self.arguments[0])
        text = built.format_help()
        for action in built._actions:  # a sub-command's own help, below its parent's (agstate-course init, audit)
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    text += f"\n{self.arguments[0]} {name}:\n" + sub.format_help()
        return [nodes.literal_block(text, text)]


class Contracts(SphinxDirective):
    """The import contracts between grader/'s rooms, as ``pyproject.toml`` declares them for import-linter."""

    def run(self):
        config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
        rows = ["| contract | these | never import |", "|---|---|---|"]
        rows += [f"| {c['name']} | {', '.join(f'`{m}`' for m in c['source_modules'])} | "
                 f"{', '.join(f'`{m}`' for m in c['forbidden_modules'])} |" for c in config]
        return _markdown(self, "\n".join(rows))


def setup(app):
    app.add_directive("agstate-parts", Parts)
    app.add_directive("agstate-tour", Tour)
    app.add_directive("agstate-tasks", Tasks)
    app.add_directive("agstate-usage", Usage)
    app.add_directive("agstate-contracts", Contracts)
    return {"parallel_read_safe": True}
