"""What the browser tests share (a pytest plugin, loaded by conftest.py): JupyterLab over
``make lab``'s workspace, Chromium, and the moves a learner makes (open a chapter, run
cells with Shift+Enter, type into a cell, move a widget's control).

Needs Debian's chromium (``apt-get install -y chromium``); where it is absent the tests
skip, except under CI, where that is a failure.
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

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium")
                                         else None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = ROOT / "artifacts" / "browser"



def require_chromium():
    """Call at the top of a browser test module: skip it where chromium is absent, or fail
    under CI, where the browser test must run."""
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs Debian's chromium for the browser test: "
                        "apt-get install -y chromium", pytrace=False)
        pytest.skip("chromium is not installed (apt-get install -y chromium); "
                    "browser test skipped", allow_module_level=True)


def _workspace_module():
    spec = importlib.util.spec_from_file_location("workspace", ROOT / "scripts" / "workspace.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    """A JupyterLab server over a copy of the chapters; yields its base URL. One a pytest
    worker: every browser test file it runs shares it (a server costs some 7 CPU s). Skips
    where chromium is absent (fails under CI)."""
    require_chromium()
    home = tmp_path_factory.mktemp("lab")
    _workspace_module().build(home / "workspace", scratch=home / "student")  # own folder
    settings = home / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # Keep every cell in the page, so the test can read all prompts and outputs; a chapter's
    # kernel goes with its tab (open_chapter closes one chapter before it opens the next).
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps(
        {"windowingMode": "none", "kernelShutdown": True}))
    news = home / "settings" / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True)
    (news / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    # The chapters' kernel as `make lab` gives it: forked (minigrad/course/lab_kernels.py),
    # first on Jupyter's path.
    from minigrad.course.lab_kernels import write_kernelspec

    write_kernelspec(home / "lab-jupyter")
    port = _free_port()
    bin_dir = pathlib.Path(sys.executable).parent
    env = {**os.environ,
           "PATH": os.pathsep.join([str(bin_dir), os.environ["PATH"]]),
           "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
           "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_DATA_DIR": str(home / "data"),
           "JUPYTER_PATH": str(home / "lab-jupyter"),
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


# How long a page may take to load or answer before a test gives up: generous, as the
# tests run three workers on two cores (a book page once took over playwright's default
# 30 s there). Waiting longer changes no verdict; it is not a timing assertion.
PATIENCE_MS = 120_000


class _Patient:
    """Chromium whose every new page waits up to :data:`PATIENCE_MS`."""

    def __init__(self, chromium):
        self._chromium = chromium

    def new_page(self, **kwargs):
        page = self._chromium.new_page(**kwargs)
        page.set_default_timeout(PATIENCE_MS)
        return page

    def __getattr__(self, name):
        return getattr(self._chromium, name)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield _Patient(chromium)
        chromium.close()


@pytest.fixture(scope="session")
def lab_page(lab, browser):
    """One JupyterLab page, loaded once a worker (a load costs Chromium some 8 CPU s), in
    which the tests open the chapters in turn with :func:`open_chapter`."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    # ?reset: a fresh workspace, so no tab of an earlier session is restored.
    page.goto(f"{lab}/lab/tree/workspace?reset")
    page.locator(".jp-DirListing-item", has_text="01_").first.wait_for()
    yield page
    page.close()


# Polling every 100 ms, not at every animation frame (playwright's default), where a test
# waits on the page: the same verdicts, with less of Chromium's CPU.
POLL_MS = 100


def _wait_idle(page):
    page.wait_for_function(
        "() => document.querySelector('.jp-Notebook-ExecutionIndicator')"
        "?.getAttribute('data-status') === 'idle'", timeout=120_000, polling=POLL_MS)


def open_chapter(page, notebook):
    """Open ``notebook`` of the workspace as a learner would, by a double-click in the file
    browser, after closing the chapter open before (its changes discarded, so every test
    sees the chapter as it comes, and its kernel shut down with it). Returns its cells, once
    its new kernel is idle."""
    page.keyboard.press("Escape")  # a dialog left by a failed test
    tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text=".ipynb")
    if tab.count():
        dirty = "jp-mod-dirty" in (tab.first.get_attribute("class") or "")
        tab.first.locator(".lm-TabBar-tabCloseIcon").click()
        if dirty:
            page.locator(".jp-Dialog button", has_text="Discard").click()
        page.wait_for_function("() => !document.querySelector('.jp-Notebook')",
                               polling=POLL_MS)
    page.locator(".jp-DirListing-item", has_text=notebook).dblclick()
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    _wait_idle(page)
    # The kernel is connected once the status bar names it and reports it idle.
    page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=120_000)
    return page.locator(".jp-Notebook .jp-Cell")


def run_cells(page, cells, indices, raising=()):
    """Run the cells at ``indices`` in turn as a learner would (click a cell's prompt,
    Shift+Enter), and wait until each shows its execution count. A cell that raises on
    purpose (in ``raising``) makes the kernel drop the requests queued behind it, so the
    test waits for the kernel around it."""
    for i in indices:
        if i in raising:
            _wait_idle(page)
        cells.nth(i).locator(".jp-InputPrompt").click()
        page.keyboard.press("Shift+Enter")
        if i in raising:
            _wait_idle(page)
    page.wait_for_function(
        "indices => { const cells = document.querySelectorAll('.jp-Notebook .jp-Cell');"
        " return indices.every(i => /\\[\\d+\\]/.test("
        "cells[i].querySelector('.jp-InputPrompt').innerText)); }",
        arg=list(indices), timeout=PATIENCE_MS, polling=POLL_MS)
    _wait_idle(page)


def run_without_errors(page, cells, indices, raising=()):
    """:func:`run_cells`, then no cell of ``indices`` shows an error but those in
    ``raising`` (cells that raise on purpose)."""
    run_cells(page, cells, indices, raising)
    for i in indices:
        errors = _errors_in(cells.nth(i))
        if i not in raising:
            assert errors.count() == 0, errors.first.inner_text()


def _cell_index(notebook, predicate):
    cells = json.loads((ROOT / "notebooks" / notebook).read_text())["cells"]
    return next(i for i, cell in enumerate(cells) if predicate(cell))


def _errors_in(cell):
    return cell.locator('[data-mime-type="application/vnd.jupyter.stderr"]')


def _type_into(page, cell, code):
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)


def _grade_id(name):
    return lambda cell: cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == name


def widget_area(cell):
    """The rendered widget in a cell's output (waits until JupyterLab has drawn it)."""
    area = cell.locator(".jp-OutputArea-output .jupyter-widgets").first
    area.wait_for(timeout=120_000)
    return area


def output_text(cell):
    return cell.locator(".jp-Cell-outputArea").first.inner_text()


def wait_for_change(page, cell_index, before, timeout=30_000):
    """Wait until the text of cell ``cell_index``'s output differs from ``before``. Any change
    counts, a slider's own label too, which moves before the kernel redraws: follow it with
    :func:`wait_for_text` for what the kernel writes."""
    page.wait_for_function(
        "([i, before]) => { const c = document.querySelectorAll('.jp-Notebook .jp-Cell')[i];"
        " const o = c && c.querySelector('.jp-Cell-outputArea');"
        " return o && o.innerText !== before; }",
        arg=[cell_index, before], timeout=timeout, polling=POLL_MS)


def wait_for_text(page, cell_index, *needles, timeout=60_000):
    """Wait until cell ``cell_index``'s output holds every one of ``needles`` (a widget
    redraws in parts, a check prints its table and its hint apart); on timeout fail with
    what it shows instead."""
    try:
        page.wait_for_function(
            "([i, needles]) => { const c = document.querySelectorAll('.jp-Notebook .jp-Cell')[i];"
            " const o = c && c.querySelector('.jp-Cell-outputArea');"
            " return o && needles.every(n => o.innerText.includes(n)); }",
            arg=[cell_index, list(needles)], timeout=timeout, polling=POLL_MS)
    except Exception as error:  # playwright's TimeoutError: say what was there instead
        shown = page.evaluate(
            "i => document.querySelectorAll('.jp-Notebook .jp-Cell')[i]"
            "?.querySelector('.jp-Cell-outputArea')?.innerText", cell_index)
        raise AssertionError(f"cell {cell_index} never showed {needles}; it shows:\n{shown}") \
            from error


def move_slider(page, cell, css_class, presses=1, key="ArrowRight"):
    """Focus the handle of the slider with ``css_class`` (add_class on the widget) in ``cell``
    and press ``key`` ``presses`` times, as a learner using the keyboard would."""
    handle = cell.locator(f".{css_class} .noUi-handle").first
    handle.scroll_into_view_if_needed()
    handle.focus()
    for _ in range(presses):
        handle.press(key)
