"""Browser test of the classroom stepper: run notebook 01 in JupyterLab, click "next" twice, read the step."""

import pytest
from playwright.sync_api import expect
from support.browser import chromium_page, run_notebook
from support.lab_server import lab_on_the_reference
from support.paths import ROOT

pytestmark = pytest.mark.slow

ARTIFACT = ROOT / "artifacts" / "stepper.png"


@pytest.mark.slow
def test_clicking_next_steps_through_the_overwrite(tmp_path):
    with lab_on_the_reference(tmp_path) as lab, chromium_page() as page:
        run_notebook(page, lab.base, lab.token, "01_overwrite.ipynb")
        stepper = page.locator(".agstate-stepper").first
        stepper.wait_for(timeout=120_000)
        shown = stepper.locator(".agstate-stepper-page")
        expect(shown).to_contain_text("step 0: the input", timeout=30_000)
        next_button = stepper.get_by_role("button", name="next ▶")
        next_button.click()
        expect(shown).to_contain_text("step 1: intake")
        next_button.click()
        expect(shown).to_contain_text("step 2: lookup")
        expect(shown).to_contain_text("overwrite (no reducer)")
        expect(shown).to_contain_text("after:  ['lookup']")
        ARTIFACT.parent.mkdir(exist_ok=True)
        stepper.screenshot(path=str(ARTIFACT))
    assert ARTIFACT.is_file() and ARTIFACT.stat().st_size > 1000
