"""The course as a learner sees it: JupyterLab from .venv, driven in headless Chromium.

Starts JupyterLab on 127.0.0.1 over a copy of notebooks/ (so autosave cannot touch the
committed chapters), opens chapter 01, runs all cells, checks that no error appears
and that the tangent explorer renders, moves its slider and sees the readout change.
Screenshots go to artifacts/browser/ (gitignored).

Needs Debian's chromium (``apt-get install -y chromium``); where it is absent the test
skips, except under CI, where that is a failure.
"""

import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.notebook_tools import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.browser]
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium")
                                         else None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = ROOT / "artifacts" / "browser"

if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("CI needs Debian's chromium for the browser test: apt-get install -y chromium",
                    pytrace=False)
    pytest.skip("chromium is not installed (apt-get install -y chromium); browser test skipped",
                allow_module_level=True)


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server over a copy of the chapters; yields its base URL."""
    home = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "notebooks", home / "notebooks", ignore=shutil.ignore_patterns("src"))
    shutil.copytree(ROOT / "figures", home / "figures")
    settings = home / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # Keep every cell in the page, so the test can read all prompts and outputs.
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    news = home / "settings" / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True)
    (news / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    port = _free_port()
    bin_dir = pathlib.Path(sys.executable).parent
    env = {**os.environ,
           "PATH": os.pathsep.join([str(bin_dir), os.environ["PATH"]]),
           "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
           "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_DATA_DIR": str(home / "data"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
           "MPLCONFIGDIR": str(home / "mpl")}
    log = open(home / "lab.log", "w")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        [str(bin_dir / "jupyter"), "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--IdentityProvider.token=", "--ServerApp.password=",
         f"--ServerApp.root_dir={home}", "--allow-root"],
        env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("JupyterLab did not start:\n" + (home / "lab.log").read_text())
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield chromium
        chromium.close()


def _open_alone(url, notebook):
    """The notebook's URL with ?reset: a fresh workspace, so no other tab is restored."""
    return f"{url}/lab/tree/notebooks/{notebook}?reset"


def _wait_idle(page):
    page.wait_for_function(
        "() => document.querySelector('.jp-Notebook-ExecutionIndicator')"
        "?.getAttribute('data-status') === 'idle'", timeout=120_000)


def _run_all(page, url, notebook):
    page.goto(_open_alone(url, notebook))
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    _wait_idle(page)
    # The kernel is connected once the status bar names it and reports it idle.
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    # Done when every code cell shows an execution number, not [*] or [ ].
    try:
        page.wait_for_function(
            """() => {
                const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];
                const done = p => /^\\[\\d+\\]:$/.test(p.textContent.trim());
                return prompts.length > 0 && prompts.every(done);
            }""", timeout=240_000)
    except Exception:
        page.screenshot(path=str(ARTIFACTS / f"{notebook}-timeout.png"), full_page=True)
        raise


def test_chapter_01_runs_and_its_tangent_explorer_responds(lab, browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    _run_all(page, lab, "01_derivatives.ipynb")

    errors = page.locator('[data-mime-type="application/vnd.jupyter.stderr"]')
    assert errors.count() == 0, errors.first.inner_text()

    readout = page.locator(".minigrad-readout")
    readout.wait_for(timeout=60_000)
    assert "x = 3.00" in readout.inner_text()
    assert "minigrad slope 6.0000" in readout.inner_text()
    assert "matches torch" in readout.inner_text()
    page.locator(".minigrad-x-slider").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "01_before.png"))

    handle = page.locator(".minigrad-x-slider .noUi-handle")
    handle.focus()
    handle.press("ArrowRight")
    page.wait_for_function(
        "() => document.querySelector('.minigrad-readout').innerText.includes('x = 3.25')",
        timeout=30_000)
    text = readout.inner_text()
    assert "minigrad slope 6.5000" in text and "matches torch" in text
    _wait_idle(page)
    page.screenshot(path=str(ARTIFACTS / "01_after.png"))
    page.close()


def test_chapter_04_stepper_steps_in_the_browser(lab, browser):
    """Run chapter 04 down to its stepper widget, press Step twice, read the readout."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = "04_local_and_upstream.ipynb"
    source_cells = json.loads((ROOT / "notebooks" / name).read_text())["cells"]
    widget_cell = next(i for i, cell in enumerate(source_cells)
                       if "stepper_widget(zm)" in "".join(cell["source"]))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(_open_alone(lab, name))
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    _wait_idle(page)
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
    # Run the cells above the widget and the widget's own (later cells raise on purpose).
    cells = page.locator(".jp-Notebook .jp-Cell")
    cells.first.click()
    for _ in range(widget_cell + 1):
        page.keyboard.press("Shift+Enter")
    readout = page.locator(".minigrad-stepper-readout")
    readout.wait_for(timeout=120_000)
    assert "press Step" in readout.inner_text()
    step = page.locator(".minigrad-stepper-next")
    step.scroll_into_view_if_needed()
    step.click()
    page.wait_for_function(
        "() => document.querySelector('.minigrad-stepper-readout').innerText"
        ".includes('a: local 10 × upstream 1 = 10 → a.grad 0 → 10')", timeout=30_000)
    step.click()
    page.wait_for_function(
        "() => document.querySelector('.minigrad-stepper-readout').innerText"
        ".includes('x: local 1 × upstream 10 = 10 → x.grad 0 → 10')", timeout=30_000)
    assert "done" in readout.inner_text()
    page.screenshot(path=str(ARTIFACTS / "04_stepper.png"))
    # Only the cells run here: later ones hold the committed output of deliberate errors.
    for i in range(widget_cell + 1):
        errors = cells.nth(i).locator(
            '[data-mime-type="application/vnd.jupyter.stderr"]')
        assert errors.count() == 0, errors.first.inner_text()
    page.close()
