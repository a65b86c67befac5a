"""The book (`make book` -> build/book/) as a reader sees it, every page in Chromium.

Serves build/book/ on 127.0.0.1 and opens each page in headless Chromium (Debian's,
as tests/test_browser_widgets.py does). On every page: no console error, no failed request and
no request that leaves the machine (MathJax and the widgets' JavaScript are served with
the site); every math element rendered by MathJax and no raw TeX delimiters left in
the text; every image loaded; every link inside the site resolves to a file of
build/book/ (and its #anchor to an id there). On every chapter: a link that opens it in
JupyterLab, the exercises without solutions or hidden tests, its figures, and its
widgets rendered from saved state where the notebook has some (a note otherwise).
Screenshots go to artifacts/book/.

Needs the book built first (`make test` runs `make book` before pytest) and chromium;
without either the test skips, except under CI, where that is a failure.
"""

import functools
import html
import http.server
import json
import os
import re
import threading
import urllib.parse

import pytest

from tests.browser_tools import CHROMIUM, PATIENCE_MS
from tests.notebook_tools import NOTEBOOKS, ROOT, nbgrader_meta

pytestmark = [pytest.mark.slow, pytest.mark.browser]
BOOK = ROOT / "build" / "book"
ARTIFACTS = ROOT / "artifacts" / "book"


def _skip_or_fail(message):
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)


if CHROMIUM is None:
    _skip_or_fail("chromium is not installed (apt-get install -y chromium); book test skipped")
if not (BOOK / "index.html").exists():
    _skip_or_fail("build/book/ is missing: run `make book` first")

PAGES = sorted(p.relative_to(BOOK).as_posix() for p in BOOK.rglob("*.html")
               if not p.relative_to(BOOK).parts[0].startswith("_"))
CHAPTERS = [nb.stem for nb in NOTEBOOKS]

# Text nodes outside code, scripts and MathJax output that still hold TeX delimiters.
RAW_TEX = r"""() => {
    const skip = 'pre, code, script, style, textarea, mjx-container, .highlight, .output';
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const found = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (n.parentElement.closest(skip)) continue;
        const t = n.textContent;
        if (/\$\$|\\\(|\\\)|\\\[|\\\]|\$[^\s$][^$]*\$/.test(t)) found.push(t.trim().slice(0, 80));
    }
    return found;
}"""
IMAGES = """async () => {
    const imgs = [...document.images];
    for (const img of imgs) img.loading = 'eager';
    await Promise.all(imgs.map(img => img.decode().catch(() => null)));
    return imgs.map(img => ({src: img.getAttribute('src'), width: img.naturalWidth}));
}"""


@pytest.fixture(scope="module")
def site():
    handler = functools.partial(_QuietHandler, directory=str(BOOK))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass



def _anchor_ids(path, cache={}):  # noqa: B006 - a cache on purpose
    if path not in cache:
        cache[path] = set(re.findall(r'\sid="([^"]+)"', path.read_text()))
    return cache[path]


def _check_links(page, site, page_path):
    broken = []
    for href in page.eval_on_selector_all("a[href]", "as => as.map(a => a.href)"):
        url = urllib.parse.urlsplit(href)
        if f"{url.scheme}://{url.netloc}" != site:
            continue
        target = BOOK / urllib.parse.unquote(url.path).lstrip("/")
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            broken.append(f"{href} (no file)")
        elif url.fragment and target.suffix == ".html" and \
                urllib.parse.unquote(url.fragment) not in _anchor_ids(target):
            broken.append(f"{href} (no id {url.fragment!r})")
    assert not broken, f"{page_path}: broken links {broken}"


def _open(browser, site, path):
    """The page loaded with MathJax done; returns it with its errors and outside requests."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors, outside = [], []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))

    def route(route, request):
        if request.url.startswith(site) or request.url.startswith("data:"):
            return route.continue_()
        outside.append(request.url)
        return route.abort()

    page.route("**/*", route)
    page.goto(f"{site}/{path}", wait_until="load")
    redirect = REFRESH.search((BOOK / path).read_text())
    if redirect:  # index.html sends the reader on: check the page they land on
        target = urllib.parse.urljoin(f"{site}/{path}", redirect[1])
        page.wait_for_url(target, wait_until="load", timeout=PATIENCE_MS)
    # A page with math sets window.MathJax to its configuration at once and loads MathJax
    # itself deferred: wait for MathJax's startup to exist, then for it to finish.
    page.wait_for_function("() => !window.MathJax || window.MathJax.startup?.promise",
                           timeout=PATIENCE_MS)
    page.evaluate("() => window.MathJax?.startup?.promise ?? null")
    page.wait_for_load_state("networkidle")
    return page, errors, outside


REFRESH = re.compile(r'<meta http-equiv="Refresh" content="0; url=([^"]+)"', re.IGNORECASE)


@pytest.mark.parametrize("path", PAGES)
def test_page_renders_with_math_images_links_and_no_errors(path, site, browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page, errors, outside = _open(browser, site, path)
    try:
        math = page.eval_on_selector_all(
            ".math", "ms => ms.map(m => !!m.querySelector('mjx-container'))")
        assert all(math), f"{path}: {math.count(False)} of {len(math)} math elements not rendered"
        assert page.evaluate(RAW_TEX) == [], f"{path}: raw TeX left in the text"
        images = page.evaluate(IMAGES)
        unloaded = [i["src"][:80] for i in images if not i["width"]]
        assert not unloaded, f"{path}: images not loaded {unloaded}"
        _check_links(page, site, path)
        if path.startswith("notebooks/"):
            _check_chapter(page, path[len("notebooks/"):-len(".html")])
        page.screenshot(path=str(ARTIFACTS / (path.replace("/", "_") + ".png")))
        assert not outside, f"{path}: requests leaving the site {outside}"
        assert not errors, f"{path}: console errors {errors}"
    finally:
        page.close()


def test_every_chapter_is_in_the_book():
    assert PAGES and all(f"notebooks/{name}.html" in PAGES for name in CHAPTERS)
    index = (BOOK / "intro.html").read_text()
    assert all(f"notebooks/{name}.html" in index for name in CHAPTERS)


def _check_chapter(page, name):
    """A link to JupyterLab, exercises without solutions, the figures and the widgets."""
    source = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
    launch = page.locator(f'a[href$="/lab/tree/{name}.ipynb"]')
    assert launch.count() >= 1, f"{name}: no link to the chapter in JupyterLab"
    text = page.inner_text("main")
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS"):
        assert marker not in text, f"{name}: {marker} on the page"
    cells = [_as_nbformat(c) for c in source["cells"]]
    solutions = [c for c in cells if nbgrader_meta(c).get("solution")]
    if any(c["cell_type"] == "code" for c in solutions):
        assert "YOUR CODE HERE" in text and "raise NotImplementedError()" in text
    elsewhere, shown = _squeeze(_outside_solutions(cells)), _squeeze(text)
    for cell in solutions:
        for line in map(_squeeze, _solution_lines(cell["source"])):
            if line not in elsewhere:  # a line the chapter shows anyway may stay
                assert line not in shown, f"{name}: solution line on the page: {line}"
    figures = sum("image/png" in o.get("data", {}) for c in cells
                  for o in c.get("outputs", [])) + sum(
        len(c.get("attachments", {})) for c in cells)
    assert page.locator("main img").count() >= figures
    state = source["metadata"].get("widgets", {}).get(
        "application/vnd.jupyter.widget-state+json", {}).get("state")
    views = sum("application/vnd.jupyter.widget-view+json" in o.get("data", {})
                for c in cells for o in c.get("outputs", []))
    if views and state:
        page.wait_for_selector(".jupyter-widgets, .widget-container", timeout=PATIENCE_MS)
    elif views:
        assert page.locator(".minigrad-widget-note").count() == views


class _Cell(dict):
    @property
    def metadata(self):
        return self.get("metadata", {})


def _as_nbformat(cell):
    cell = _Cell(cell)
    cell["source"] = "".join(cell["source"]) if isinstance(cell["source"], list) \
        else cell["source"]
    return cell


def _solution_lines(source):
    """Lines of a solution region long enough to be the solution's own."""
    inside, lines = False, []
    for line in source.splitlines():
        if "BEGIN SOLUTION" in line:
            inside = True
        elif "END SOLUTION" in line:
            inside = False
        elif inside and len(line.strip()) >= 25:
            lines.append(line.strip())
    return lines


def _squeeze(text):
    """Text without markup and with every run of white space one space."""
    return " ".join(re.sub(r"<[^>]+>", " ", html.unescape(text)).split())


def _outside_solutions(cells):
    """What the chapter shows besides its solutions: sources and outputs of the others."""
    shown = []
    for cell in cells:
        if nbgrader_meta(cell).get("solution"):
            continue
        shown.append(cell["source"])
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            for text in (output.get("text"), data.get("text/plain"), data.get("text/html")):
                shown.append("".join(text or "") if isinstance(text, list) else text or "")
    return "\n".join(shown)
