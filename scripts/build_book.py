"""Build the course's book, a static HTML site of every chapter, into build/book/.

`make book` runs this with .venv's Python. Jupyter Book 1 (Sphinx + myst-nb) renders the
executed chapters committed in notebooks/; nothing is executed. Steps:

1. build/book-src/: the book's sources. book/ (``_config.yml``, ``intro.md``,
   ``exercises.md``, ``sources.md``), a ``_toc.yml`` listing every chapter in order and
   then the Exercises and Sources pages, and each chapter as a student gets it:
   nbgrader's ClearSolutions and ClearHiddenTests remove solutions and hidden tests,
   and the outputs of exercise cells (solutions and their tests) are cleared, as they
   would show the solution's results. A link at the top of each chapter opens it in
   JupyterLab (``--lab-url``, by default the server ``make lab`` starts). A widget
   output is rendered from the widget state saved in the notebook's metadata; a
   chapter without saved state gets a note in its place that the widget runs in
   JupyterLab. Cell attachments (the figures) become image files beside the chapters. A
   chapter's link to the Sources or the Exercises page, ``../book/sources.md`` or
   ``../book/exercises.md`` from notebooks/, is pointed at the book's copy
   (``../sources.md``, ``../exercises.md`` from the book's notebooks/).
2. _vendor/ (served as _static/): MathJax 3 (tex-chtml), RequireJS and
   @jupyter-widgets/html-manager, served with the site instead of from a CDN (not from
   a source folder named _static: Jupyter Book would add every .js in it to every page).
   They come from the npm registry as the exact tarballs in ASSETS (``npm pack``, sha512
   checked), cached in build/book-assets/.
3. ``jupyter-book build`` into build/book-tmp/, then its HTML moves to build/book/.

Warnings of the Sphinx build fail it (``-W``), so a broken reference does not pass.
"""

import argparse
import base64
import copy
import hashlib
import pathlib
import shutil
import subprocess
import sys
import tarfile

import nbformat
from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"
SRC = BUILD / "book-src"
OUT = BUILD / "book"
CACHE = BUILD / "book-assets"
LAB_URL = "http://localhost:8888/lab/tree/"  # `make lab` serves workspace/ at its root
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
SOURCES_LINK = "../book/sources.md"  # how a chapter in notebooks/ links to the Sources page
EXERCISES_LINK = "../book/exercises.md"  # ... and to the page on how the exercises work

# npm tarball -> (sha512 from the registry, {path in the tarball: path under _static/}).
# A path ending in "/" copies that folder.
ASSETS = {
    "mathjax@3.2.2": (
        "Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==",
        {"package/es5/": "mathjax/"}),
    "requirejs@2.3.7": (
        "DouTG8T1WanGok6Qjg2SXuCMzszOo0eHeH9hDZ5Y4x8Je+9JB38HdTLT4/VA8OaUhBa0JPVHJ0pyBkM1z+pDsw==",
        {"package/require.js": "require.js"}),
    "@jupyter-widgets/html-manager@1.0.15": (
        "5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
        {"package/dist/embed-amd.js": "widgets/embed-amd.js",
         # the icon fonts embed-amd.js loads, next to it (webpack's automatic public path)
         **{f"package/dist/{name}": f"widgets/{name}" for name in (
             "1551f4f60c37af51121f.woff2", "2285773e6b4b172f07d9.woff",
             "23f19bb08961f37aaf69.eot", "2f517e09eb2ca6650ff5.svg",
             "4689f52cc96215721344.svg", "491974d108fe4002b2aa.ttf",
             "527940b104eb2ea366c8.ttf", "77206a6bb316fa0aded5.eot",
             "7a3337626410ca2f4071.woff2", "7a8b4f130182d19a2d7c.svg",
             "9bbb245e67a133f6e486.eot", "bb58e57c48a3e911f15f.woff",
             "be9ee23c0c6390141475.ttf", "d878b0a6a1144760244f.woff2",
             "eeccf4f66002c6f2ba24.woff")}}),
}


def chapters():
    return sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def fetch_asset(spec, sha512):
    """The npm tarball of ``spec`` (name@version) in build/book-assets/, checked."""
    CACHE.mkdir(parents=True, exist_ok=True)
    name, version = spec.rsplit("@", 1)
    tarball = CACHE / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    if not tarball.exists():
        subprocess.run(["npm", "pack", spec, "--pack-destination", str(CACHE), "--silent"],
                       check=True, stdout=subprocess.DEVNULL)
    digest = base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    if digest != sha512:
        tarball.unlink()
        sys.exit(f"{spec}: sha512 {digest} is not the pinned {sha512}")
    return tarball


def install_assets(static):
    for spec, (sha512, files) in ASSETS.items():
        with tarfile.open(fetch_asset(spec, sha512)) as tar:
            members = tar.getmembers()
            for source, target in files.items():
                chosen = [m for m in members if m.isfile() and (
                    m.name == source or (source.endswith("/") and m.name.startswith(source)))]
                if not chosen:
                    sys.exit(f"{spec}: no {source} in the tarball")
                for member in chosen:
                    dest = static / target / member.name[len(source):] if source.endswith(
                        "/") else static / target
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(tar.extractfile(member).read())


def _is_exercise(cell):
    meta = cell.metadata.get("nbgrader", {})
    return bool(meta.get("solution") or meta.get("grade"))


def _widget_note(url):
    return {"text/html": (
        '<p class="minigrad-widget-note">An interactive widget: '
        f'<a href="{url}">open this chapter in JupyterLab</a> to use it.</p>'),
        "text/plain": "An interactive widget: open this chapter in JupyterLab to use it."}


def student_version(path, lab_url):
    """The chapter as a student gets it, with a link to it in JupyterLab on top."""
    nb = nbformat.read(path, as_version=4)
    resources = {}
    nb, resources = ClearSolutions().preprocess(nb, resources)
    nb, resources = ClearHiddenTests().preprocess(nb, resources)
    url = lab_url + path.name
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = cell.source.replace(f"]({SOURCES_LINK})", "](../sources.md)")
            cell.source = cell.source.replace(f"]({EXERCISES_LINK})", "](../exercises.md)")
        if cell.cell_type != "code":
            continue
        if _is_exercise(cell):
            cell.outputs = []
            cell.execution_count = None
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is not None and view.get("model_id") not in state:
                output["data"] = _widget_note(url)
    link = nbformat.v4.new_markdown_cell(
        f"[Open this chapter in JupyterLab]({url}) to run it and do its exercises "
        "(from a clone of the course: `make lab`). The exercises below are shown as a "
        "student gets them, without solutions.")
    link.metadata["tags"] = ["minigrad-launch"]
    title = 1 if nb.cells and nb.cells[0].cell_type == "markdown" else 0
    if title:  # keep the title first: split it off the first cell's text
        first = nb.cells[0]
        heading, _, rest = first.source.partition("\n")
        if heading.startswith("# ") and rest.strip():
            first.source = heading
            body = copy.deepcopy(first)
            body.source = rest.lstrip("\n")
            body.pop("id", None)
            nb.cells.insert(1, body)
    nb.cells.insert(title, link)
    for i, cell in enumerate(nb.cells):  # ids stay unique after the inserts
        cell["id"] = f"cell-{i}"
    return nb


def extract_attachments(nb, folder, prefix):
    """Write cell attachments to files and point the markdown at them (myst-nb reads files)."""
    for cell in nb.cells:
        for name, data in cell.pop("attachments", {}).items():
            mime, payload = next(iter(data.items()))
            if not mime.startswith("image/"):
                sys.exit(f"{prefix}: attachment {name} is {mime}, not an image")
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{prefix}-{name}").write_bytes(base64.b64decode(payload))
            cell.source = cell.source.replace(f"(attachment:{name})",
                                              f"({folder.name}/{prefix}-{name})")
    return nb


def assemble(lab_url):
    shutil.rmtree(SRC, ignore_errors=True)
    shutil.copytree(ROOT / "book", SRC)
    (SRC / "notebooks").mkdir()
    for path in chapters():
        nb = extract_attachments(student_version(path, lab_url), SRC / "notebooks" / "images",
                                 path.stem)
        nbformat.write(nb, SRC / "notebooks" / path.name)
    toc = ["format: jb-book", "root: intro", "chapters:"]
    toc += [f"  - file: notebooks/{path.stem}" for path in chapters()]
    toc += ["  - file: exercises", "  - file: sources"]
    (SRC / "_toc.yml").write_text("\n".join(toc) + "\n")
    install_assets(SRC / "_vendor")


def build():
    tmp = BUILD / "book-tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(OUT, ignore_errors=True)  # a failed build leaves no stale book behind
    jb = pathlib.Path(sys.executable).parent / "jupyter-book"
    subprocess.run([str(jb), "build", str(SRC), "--path-output", str(tmp), "--builder", "html",
                    "-W", "-n", "--keep-going", "--all"], check=True)
    (tmp / "_build" / "html").rename(OUT)
    shutil.rmtree(tmp)
    print(f"book: {OUT / 'index.html'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lab-url", default=LAB_URL,
                        help="where each chapter's launch link points (chapter file name "
                             f"appended; default {LAB_URL})")
    args = parser.parse_args()
    assemble(args.lab_url)
    build()


if __name__ == "__main__":
    main()
