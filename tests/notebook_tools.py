"""Shared helpers for the notebook tests: where the chapters are, and the builder."""

import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SOURCES = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))


def load_builder():
    spec = importlib.util.spec_from_file_location(
        "build_notebooks", ROOT / "scripts" / "build_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def nbgrader_meta(cell):
    return cell.metadata.get("nbgrader", {})
