"""Headless Chromium from Debian's packages, driven by Playwright, on a JupyterLab notebook.

Playwright's own browser download does not work on the lab's machines, so the
browser is Debian's ``/usr/bin/chromium`` (``make test`` installs it). The
flags keep it off the network, which is closed.
"""

from contextlib import contextmanager
from pathlib import Path

__all__ = ["CHROMIUM", "chromium", "chromium_page", "run_notebook"]

CHROMIUM = Path("/usr/bin/chromium")
_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
          "--disable-component-update", "--disable-sync"]


@contextmanager
def chromium():
    """Headless Chromium (Playwright gives it a new user-data-dir); each ``new_context()`` is a person of its own."""
    assert CHROMIUM.exists(), ("Chromium is missing at /usr/bin/chromium: run `make test` (it installs Debian's "
                               "chromium) or `apt-get install -y chromium`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def chromium_page(width: int = 1400, height: int = 1000):
    """A fresh page in headless Chromium."""
    with chromium() as browser:
        yield browser.new_page(viewport={"width": width, "height": height})


def run_notebook(page, base: str, token: str, notebook: str) -> None:
    """Open ``notebook`` in JupyterLab and run every cell from the menu, as a person would.

    The menu, not keys: on a busy machine keystrokes can arrive before the
    notebook panel takes focus, and are lost.
    """
    page.goto(f"{base}/lab/tree/{notebook}?token={token}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    # Run only once the kernel is up: earlier, JupyterLab asks which kernel to start.
    page.locator(".jp-StatusBar-Widget", has_text="| Idle").first.wait_for(timeout=120_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
