"""The course's nbgrader config refuses to grade when its plugins cannot load.

nbgrader (through traitlets) only logs an error for a config file that raises, then grades
with its defaults: no sandbox, no guards, no verdicts outside the kernel. The config catches
that case itself and puts a preprocessor that refuses every submission in the pipeline.
"""

import pathlib
import sys

import pytest
from traitlets.config import Config

CONFIG = pathlib.Path(__file__).resolve().parents[1] / "instructor" / "nbgrader_config.py"


def _load(monkeypatch, broken):
    if broken:  # importing the plugins fails, as with another checkout's minigrad
        monkeypatch.setitem(sys.modules, "minigrad.course.nbgrader_plugins", None)
    config = Config()
    exec(compile(CONFIG.read_text(), str(CONFIG), "exec"), {"get_config": lambda: config})
    return config


def test_the_config_grades_with_the_course_pipeline(monkeypatch):
    config = _load(monkeypatch, broken=False)
    names = [p.__name__ for p in config.Autograde.autograde_preprocessors]
    assert names[:2] == ["GuardedExecute", "Verdicts"]
    assert "RestoreCells" in [p.__name__ for p in config.Autograde.sanitize_preprocessors]


def test_the_config_refuses_to_grade_without_its_plugins(monkeypatch):
    config = _load(monkeypatch, broken=True)
    for pipeline in (config.Autograde.sanitize_preprocessors,
                     config.Autograde.autograde_preprocessors):
        refusing = [p for p in pipeline if p.__name__ == "RefuseToGrade"]
        assert refusing
    with pytest.raises(RuntimeError, match="grading plugins did not load"):
        refusing[0]().preprocess(None, {})
