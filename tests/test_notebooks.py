"""The committed chapters are built from their sources, executed, and shaped as COURSE.md says.

The wrong-answer pass (tests/wrong_answer_suite.py) re-executes each chapter and compares
its outputs with the committed ones as nbval does; that cannot tell a never-executed
notebook from a good one, so these tests do.
"""

import re

import nbformat
import pytest

from tests.notebook_tools import NOTEBOOKS, SOURCES, code_cells, load_builder, nbgrader_meta

IDS = [p.stem for p in NOTEBOOKS]


def test_chapters_are_numbered_from_01_without_gaps():
    numbers = [int(p.stem[:2]) for p in NOTEBOOKS]
    assert numbers, "no chapters in notebooks/"
    assert numbers == list(range(1, len(numbers) + 1))


def test_every_chapter_has_a_source_and_every_source_a_chapter():
    assert [p.stem for p in NOTEBOOKS] == [p.stem for p in SOURCES]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_committed_notebook_matches_its_source(path):
    built = load_builder().parse(path.parent / "src" / f"{path.stem}.py")
    committed = nbformat.read(path, as_version=4)
    assert len(committed.cells) == len(built.cells), "run: make notebooks"
    for ours, theirs in zip(committed.cells, built.cells, strict=True):
        assert (ours.cell_type, ours.source) == (theirs.cell_type, theirs.source), (
            f"cell {ours.get('id')} differs from notebooks/src: run make notebooks")
        assert ours.metadata.get("tags") == theirs.metadata.get("tags")
        assert ours.get("attachments") == theirs.get("attachments"), (
            f"cell {ours.get('id')}: a figure changed since the build: run make notebooks")
        assert nbgrader_meta(ours) == nbgrader_meta(theirs)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_executed_top_to_bottom_in_one_fresh_kernel(path):
    nb = nbformat.read(path, as_version=4)
    counts = [c.execution_count for c in code_cells(nb)]
    assert counts == list(range(1, len(counts) + 1)), f"execution counts {counts}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_errors_only_where_tagged_raises_exception(path):
    nb = nbformat.read(path, as_version=4)
    for cell in code_cells(nb):
        tagged = "raises-exception" in cell.metadata.get("tags", [])
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if tagged:
            assert errors, f"cell {cell.id} is tagged raises-exception but raised nothing"
        else:
            assert not errors, f"cell {cell.id} raised {errors[0].ename}"
        stderr = [o for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
        assert not stderr, f"cell {cell.id} wrote to stderr: {stderr[0].text[:200]}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_chapter_shape_goals_exercises_summary(path):
    nb = nbformat.read(path, as_version=4)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    number = int(path.stem[:2])
    assert nb.cells[0].source.startswith(f"# {number:02d} ")
    assert "**Learning goals.**" in markdown
    assert "## Summary" in markdown
    exercises = re.findall(rf"### Exercise {number}\.(\d+):", markdown)
    assert len(exercises) >= 2
    assert exercises == [str(i) for i in range(1, len(exercises) + 1)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_every_exercise_has_a_solution_and_a_locked_test(path):
    nb = nbformat.read(path, as_version=4)
    solutions = [c for c in nb.cells if nbgrader_meta(c).get("solution")]
    tests = [c for c in nb.cells if nbgrader_meta(c).get("grade")]
    assert len(solutions) >= 2 and len(tests) >= len(solutions)
    for cell in solutions:
        assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source
    for cell in tests:
        meta = nbgrader_meta(cell)
        assert meta["locked"] and meta["points"] > 0
        assert "check(" in cell.source or "check_all(" in cell.source, (
            f"{meta['grade_id']} should compare with torch through minigrad.check")
    ids = [nbgrader_meta(c)["grade_id"] for c in solutions + tests]
    assert len(ids) == len(set(ids)), "grade_id must be unique"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_test_cells_are_graded_blocks_with_hidden_tests(path):
    """Each test cell imports what it uses, runs one graded() block, holds hidden tests,
    and hands nbgrader no value to read as partial credit (no execute_result)."""
    nb = nbformat.read(path, as_version=4)
    for cell in [c for c in nb.cells if nbgrader_meta(c).get("grade")]:
        grade_id = nbgrader_meta(cell)["grade_id"]
        lines = [line for line in cell.source.splitlines() if line.strip()]
        assert lines[0].startswith(("from ", "import ")), f"{grade_id}: imports first"
        assert "with graded(" in cell.source, f"{grade_id}: not a graded() block"
        assert "### BEGIN HIDDEN TESTS" in cell.source, f"{grade_id}: no hidden tests"
        results = [o for o in cell.outputs if o.output_type == "execute_result"]
        assert not results, f"{grade_id}: a value nbgrader would read as partial credit"
        points = nbgrader_meta(cell)["points"]
        heading = [c.source for c in nb.cells if c.cell_type == "markdown"
                   and f"({points} point" in c.source]
        assert heading, f"{grade_id}: the exercise heading should give its {points} points"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_every_random_source_is_seeded(path):
    source = "\n".join(c.source for c in code_cells(nbformat.read(path, as_version=4)))
    if re.search(r"\b(randn|rand|randint|random\.|default_rng|shuffle)\b", source):
        assert re.search(r"manual_seed|default_rng\(\d|np\.random\.seed|random\.seed", source)
