"""minigrad-course installs and runs on the Pythons learners have, without torch.

Builds the package's wheel once, then for each Python a fresh venv that installs that
wheel the way a learner would (``pip install minigrad-course``: numpy comes from the
package index, whatever its newest release for that Python is; no constraints, no
torch; pip is this venv's, run with ``--python`` for the new one) and runs
``tests/smoke_minigrad.py`` in it: both engines on the seeds' numbers, ``import minigrad``
with neither matplotlib nor ipywidgets installed, then the course helpers once the
``helpers`` extra is added. Python 3.10 gets the oldest numpy the
package admits, so the lower bound is tested too.

The interpreters come from pyenv (``pyenv versions``). A missing one skips its case,
except under CI, where that is a failure.
"""

import glob
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SMOKE = ROOT / "tests" / "smoke_minigrad.py"
pytestmark = pytest.mark.slow

# (python, extra pip arguments, also test the helpers extra)
CASES = [
    ("3.12", [], False),
    ("3.13", [], True),
    ("3.10", ["numpy==2.0.*"], False),  # the oldest numpy that pyproject.toml admits
]


def _interpreter(version):
    """The newest pyenv build of ``version``, else ``pythonX.Y`` on PATH, else None."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = sorted(glob.glob(f"{root}/versions/{version}.*/bin/python{version}"),
                   key=lambda p: [int(n) for n in p.split("/")[-3].split(".") if n.isdigit()])
    candidates = found[-1:] + [shutil.which(f"python{version}")]
    for path in filter(None, candidates):
        if subprocess.run([path, "-c", "pass"], capture_output=True).returncode == 0:
            return path
    return None


def _run(args, **kwargs):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, args))}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The package's wheel, built from a copy of the sources (the tree is left as it was)."""
    src = tmp_path_factory.mktemp("src")
    shutil.copy(ROOT / "pyproject.toml", src)
    shutil.copy(ROOT / "README.md", src)
    shutil.copytree(ROOT / "minigrad", src / "minigrad",
                    ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    # setuptools from this venv (pyproject's build backend): not a fresh one fetched and
    # installed for the build (2 s)
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
          "-w", out, src])
    (path,) = out.glob("minigrad_course-*.whl")
    return path


@pytest.mark.parametrize("version, pip_args, helpers", CASES,
                         ids=[f"py{c[0]}" for c in CASES])
def test_wheel_installs_and_both_engines_run_without_torch(version, pip_args, helpers,
                                                           wheel, tmp_path):
    python = _interpreter(version)
    if python is None:
        message = f"Python {version} not found (pyenv install {version})"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    venv = tmp_path / "venv"
    # pip --python: this venv's pip installs into the new one (the files a learner's own pip
    # puts there), which then needs no pip of its own (ensurepip: 3 s of CPU a venv)
    _run([python, "-m", "venv", "--without-pip", venv])
    pip = [sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "-q",
           "--disable-pip-version-check"]
    _run([*pip, wheel, *pip_args])
    out = _run([venv / "bin" / "python", SMOKE], cwd=tmp_path)  # not the source tree
    assert f"smoke ok: Python {version}." in out
    assert "neither matplotlib nor ipywidgets" in out
    if helpers:
        _run([*pip, f"{wheel}[helpers]"])
        out = _run([venv / "bin" / "python", SMOKE, "--helpers"], cwd=tmp_path)
        assert "helpers: draw_graph PNG, stepper_widget steps" in out
    frozen = _run([sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "freeze"])
    assert "torch" not in frozen.lower()
    print(out, frozen, sep="\n")
