"""Browser test of the board widget: run notebook 12 in JupyterLab, click a card's ▶, see it move.

Headless Chromium from Debian's packages (``make test`` installs it) driven by
Playwright. The card must move on the page and in the graph's state, read by
a new cell in the same kernel. The screenshot is kept at
``artifacts/board_widget.png``.
"""

import pytest
from playwright.sync_api import expect
from support.browser import chromium_page, run_notebook
from support.lab_server import lab_on_the_reference
from support.paths import ROOT

pytestmark = pytest.mark.slow

ARTIFACT = ROOT / "artifacts" / "board_widget.png"


@pytest.mark.slow
def test_clicking_a_card_moves_it_on_the_page_and_in_the_graph(tmp_path):
    ARTIFACT.parent.mkdir(exist_ok=True)
    with lab_on_the_reference(tmp_path) as lab, chromium_page() as page:
        run_notebook(page, lab.base, lab.token, "12_board_widget.ipynb")
        board = page.locator(".agstate-board").first
        board.wait_for(timeout=120_000)
        # The notebook leaves T-43 in the backlog; its ▶ moves it to doing.
        expect(page.locator(".jp-Notebook table").last).to_be_visible(timeout=120_000)  # the last check cell ran
        button = board.locator(".agstate-column-backlog .agstate-card-T-43 button[title='move T-43 to doing']")
        expect(button).to_be_enabled(timeout=30_000)
        button.click()
        expect(board.locator(".agstate-column-doing .agstate-card-T-43")).to_have_count(1, timeout=30_000)
        expect(board.locator(".agstate-column-backlog .agstate-card-T-43")).to_have_count(0)
        expect(board.locator(".agstate-status")).to_contain_text("move T-43 to doing accepted")
        board.screenshot(path=str(ARTIFACT))

        # The graph's state, read by a new cell at the end of the notebook, in the same kernel.
        page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt").last.click()
        page.keyboard.press("Escape")
        page.keyboard.press("b")
        page.keyboard.press("Enter")
        page.keyboard.type("print('STATE', [k.card_id for c in graph.get_state(config).values['board'].columns "
                           "if c.column_id == 'doing' for k in c.cards])")
        page.keyboard.press("Shift+Enter")
        state = page.locator(".jp-OutputArea-output:has-text('STATE')").last
        expect(state).to_contain_text("STATE ['T-42', 'T-43']", timeout=60_000)
    assert ARTIFACT.is_file() and ARTIFACT.stat().st_size > 1000
