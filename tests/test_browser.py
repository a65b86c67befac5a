"""The course as a learner sees it: ``make lab``'s workspace in JupyterLab, in Chromium.

Starts JupyterLab from .venv on 127.0.0.1 over a workspace built as ``make lab`` builds
it (the student version of every chapter, in a temporary folder, so nothing committed is
touched). In chapter 01 it checks that no solution is in sight, runs the chapter to its
tangent explorer and moves the slider; then types a wrong answer into exercise 1.1, runs
its check and sees the failing table and hint, types a right one and sees it pass. In
chapter 04 it steps the backward stepper to the end and runs the next cell, which must
still agree with torch. Screenshots go to artifacts/browser/ (gitignored).

Needs Debian's chromium (``apt-get install -y chromium``); where it is absent the test
skips, except under CI, where that is a failure.
"""

import importlib.util
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


def _workspace_module():
    spec = importlib.util.spec_from_file_location("workspace", ROOT / "scripts" / "workspace.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server over a copy of the chapters; yields its base URL."""
    home = tmp_path_factory.mktemp("lab")
    _workspace_module().build(home / "workspace")
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
    return f"{url}/lab/tree/workspace/{notebook}?reset"


def _wait_idle(page):
    page.wait_for_function(
        "() => document.querySelector('.jp-Notebook-ExecutionIndicator')"
        "?.getAttribute('data-status') === 'idle'", timeout=120_000)


def _open(page, url, notebook):
    page.goto(_open_alone(url, notebook))
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    _wait_idle(page)
    # The kernel is connected once the status bar names it and reports it idle.
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
    return page.locator(".jp-Notebook .jp-Cell")


def _cell_index(notebook, predicate):
    cells = json.loads((ROOT / "notebooks" / notebook).read_text())["cells"]
    return next(i for i, cell in enumerate(cells) if predicate(cell))


def _run_through(page, cells, last):
    """Run cells 0..last with Shift+Enter, as a learner would, and wait for the kernel."""
    cells.first.click()
    for _ in range(last + 1):
        page.keyboard.press("Shift+Enter")
    _wait_idle(page)


def _errors_in(cell):
    return cell.locator('[data-mime-type="application/vnd.jupyter.stderr"]')


def _type_into(page, cell, code):
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)


def _grade_id(name):
    return lambda cell: cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == name


def test_chapter_01_learner_path(lab, browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = "01_derivatives.ipynb"
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    cells = _open(page, lab, name)
    assert "(f(x + h) - f(x - h)) / (2 * h)" not in page.locator(".jp-Notebook").inner_text()

    explorer = _cell_index(name, lambda c: "tangent_explorer(f" in "".join(c["source"]))
    _run_through(page, cells, explorer)
    for i in range(explorer + 1):
        assert _errors_in(cells.nth(i)).count() == 0, _errors_in(cells.nth(i)).first.inner_text()
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

    # Exercise 1.1: the cells before it, then a wrong answer, then a right one.
    answer = _cell_index(name, _grade_id("ex01-central-slope"))
    _run_through(page, cells, answer - 1)
    check = cells.nth(answer + 1)
    _type_into(page, cells.nth(answer),
               "def central_slope(f, x, h=1e-4):\n    return (f(x + h) - f(x)) / h\n")
    cells.nth(answer).locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")
    _wait_idle(page)
    check.locator(".jp-OutputArea-output").first.wait_for(timeout=60_000)
    shown = check.locator(".jp-OutputArea").inner_text()
    assert "FAIL" in shown and "Hint:" in shown and "Exercise 1.1" in shown, shown
    assert shown.count("\n") < 40, "a failing check should not print a long traceback"
    check.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "01_exercise_wrong.png"))

    _type_into(page, cells.nth(answer),
               "def central_slope(f, x, h=1e-4):\n"
               "    return (f(x + h) - f(x - h)) / (2 * h)\n")
    cells.nth(answer).locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")
    _wait_idle(page)
    page.wait_for_function(
        "i => !document.querySelectorAll('.jp-Notebook .jp-Cell')[i].innerText"
        ".includes('FAIL')", arg=answer + 1, timeout=60_000)
    shown = check.locator(".jp-OutputArea").inner_text()
    assert "pass" in shown and "FAIL" not in shown, shown
    assert _errors_in(check).count() == 0
    check.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "01_exercise_right.png"))
    page.close()


def test_chapter_04_stepper_then_the_next_cell(lab, browser):
    """Step chapter 04's backward stepper to the end, then run the cells after it."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    name = "04_local_and_upstream.ipynb"
    widget_cell = _cell_index(name, lambda c: "stepper_widget(zm)" in "".join(c["source"]))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    cells = _open(page, lab, name)
    _run_through(page, cells, widget_cell)
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
    # The next cells, after stepping to the end: no error, torch still agrees.
    cells.nth(widget_cell + 1).click()
    for _ in range(3):
        page.keyboard.press("Shift+Enter")
    _wait_idle(page)
    for i in range(widget_cell + 4):
        errors = _errors_in(cells.nth(i))
        assert errors.count() == 0, errors.first.inner_text()
    page.screenshot(path=str(ARTIFACTS / "04_after_stepper.png"))
    page.close()
