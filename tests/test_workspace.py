"""The learner's workspace (``make lab``): student versions, never overwritten, reset, and
a solution shown only when asked for."""

import importlib.util
import re

import nbformat
import pytest

from tests.notebook_tools import NOTEBOOKS, ROOT, marked_lines, nbgrader_meta, visible_code_lines

pytestmark = pytest.mark.slow


def _workspace_module():
    spec = importlib.util.spec_from_file_location("workspace", ROOT / "scripts" / "workspace.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    module = _workspace_module()
    module.SCRATCH = tmp_path_factory.mktemp("student")  # not build/student: tests run at once
    folder = tmp_path_factory.mktemp("workspace")
    module.build(folder)
    return module, folder


def _solution_lines(nb):
    return [line for cell in nb.cells if nbgrader_meta(cell).get("solution")
            for line in marked_lines(cell.source, ("SOLUTION",)) if len(line) > 12]


def test_every_chapter_is_a_student_version(ws):
    _, folder = ws
    assert sorted(p.name for p in folder.glob("*.ipynb")) == [p.name for p in NOTEBOOKS]
    for source in NOTEBOOKS:
        student = nbformat.read(folder / source.name, as_version=4)
        code = "\n".join(c.source for c in student.cells if c.cell_type == "code")
        hints = "\n".join(re.findall(r"<details>.*?</details>", "\n".join(
            c.source for c in student.cells if c.cell_type == "markdown"), re.DOTALL))
        text = code + "\n" + hints  # the statement may name things; code and hints may not
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
        source_nb = nbformat.read(source, as_version=4)
        code_lines = {line.strip() for line in code.splitlines()}
        visible = visible_code_lines(source_nb)  # shown in the source too, by design
        for line in _solution_lines(source_nb):
            leaked = line in hints or (line in code_lines and line not in visible)
            assert not leaked, f"{source.name}: solution line in sight: {line!r}"
        assert not [o for c in student.cells if c.cell_type == "code" for o in c.outputs]
        figures = [c for c in student.cells if c.get("attachments")]
        original = [c for c in nbformat.read(source, as_version=4).cells if c.get("attachments")]
        assert len(figures) == len(original), "a figure is missing"
    assert (folder / "nbgrader_config.py").exists()


def test_building_again_keeps_the_learners_work_and_adds_what_is_missing(ws):
    module, folder = ws
    mine = folder / NOTEBOOKS[0].name
    nb = nbformat.read(mine, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("my_own_work = 42"))
    nbformat.write(nb, mine)
    (folder / NOTEBOOKS[1].name).unlink()
    assert module.build(folder) == [NOTEBOOKS[1].name]
    assert "my_own_work = 42" in mine.read_text()


def test_reset_keeps_the_old_copy_and_restores_the_chapter(ws, capsys):
    module, folder = ws
    mine = folder / NOTEBOOKS[0].name
    assert "my_own_work" in mine.read_text()
    module.reset(NOTEBOOKS[0].name[:2], folder)
    assert "my_own_work" not in mine.read_text()
    kept = list((folder / ".previous").glob(f"{NOTEBOOKS[0].stem}-*.ipynb"))
    assert kept and "my_own_work" in kept[0].read_text()


def test_a_solution_is_shown_only_when_asked(ws, capsys):
    module, folder = ws
    text = module.solution("1.1")
    out = capsys.readouterr().out
    assert "-a.data / b.data ** 2" in text and "-a.data / b.data ** 2" in out
    assert "BEGIN SOLUTION" not in out
    with pytest.raises(SystemExit):
        module.solution("1.99")
