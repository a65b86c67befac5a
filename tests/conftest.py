"""Shared test settings: hypothesis profiles (CI: no deadline, few examples; fuzz: long),
the order of the long files, and one released course folder for the grading tests."""

import contextlib
import fcntl
import os
import shutil

import pytest
from hypothesis import settings

pytest_plugins = ["tests.browser_tools", "tests.timing"]

settings.register_profile("ci", deadline=None, max_examples=25, derandomize=True)
settings.register_profile("dev", deadline=None, max_examples=10)
# `make fuzz`: the differential fuzzer (tests/test_fuzz.py) at length, new programs each run.
settings.register_profile("fuzz", deadline=None, max_examples=5000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# The longest test files run first, longest first (pytest -n 3 --dist loadfile hands
# each worker whole files in this order), so no worker is left with one at the end. CPU
# seconds (and wall) measured with MINIGRAD_TIMES (tests/timing.py) in one make test: the
# browser widgets (every chapter on one JupyterLab page) 112 (131 s); the round trip,
# which holds the wrong-answer pass (one group of chapters a file), 116 (198 s) and 97
# (165 s); book 70, verdicts 43, grade index 38, sandbox 30, autograde 24.
# test_verdicts.py decides the verdicts of all five test_verdicts*.py files
# (tests/verdict_tables.py): the other four come last, when the table is there, so no
# worker waits for it.
LONGEST = ("test_browser_widgets.py", "test_nbgrader_roundtrip.py",
           "test_nbgrader_roundtrip_2.py", "test_verdicts.py", "test_sandbox.py",
           "test_autograde.py", "test_grade_index.py", "test_forkserver.py",
           "test_python_versions.py", "test_book.py", "test_class_report.py",
           "test_exchange.py", "test_workspace.py")
LAST = ("test_verdicts_graphs.py", "test_verdicts_callables.py", "test_verdicts_classes.py",
        "test_verdicts_models.py")


def pytest_configure(config):
    """With --nbval in the chapters' forked kernel (make test), pytest's first process
    starts one kernel server and names it for the processes it starts (minigrad/course/
    lab_kernels.py, ``SHARED``): the workers' nbval kernels and the browser tests'
    JupyterLab fork from it, not from a server each (some 4 CPU s a server)."""
    if hasattr(config, "workerinput") or not config.getoption("nbval", default=False):
        return
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    from minigrad.course import lab_kernels

    try:
        spec = KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        return
    if spec.metadata.get("kernel_provisioner", {}).get("provisioner_name") == lab_kernels.NAME:
        lab_kernels.share()


def pytest_collection_modifyitems(items):
    def rank(name):
        if name in LONGEST:
            return 0, LONGEST.index(name)
        return (2, LAST.index(name)) if name in LAST else (1, 0)

    items.sort(key=lambda item: rank(item.path.name))


@pytest.fixture(autouse=True)
def _verdict_wire_state():
    """The verdicts' wire state (minigrad/course/verdicts_objects.py) as it was before each
    test: tests that play the learner's side in this process (verdicts_models.incoming
    sets it to the learner's) leave none for the judge-side tests after them."""
    from minigrad.course import verdicts_objects

    saved = dict(verdicts_objects.STATE)
    yield
    verdicts_objects.STATE.clear()
    verdicts_objects.STATE.update(saved)


@contextlib.contextmanager
def _locked(path):
    """An exclusive lock on the file ``path`` between processes (the xdist workers)."""
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run_folder(tmp_path_factory):
    """The folder of this test run that every pytest worker shares: under xdist each
    worker's base temp is a folder of it. What one worker makes there for all, under
    :func:`_locked`, the others read (``released_course``, ``tests/verdict_tables.py``)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def released_course(tmp_path_factory):
    """``released_course(folder, notebooks)``: an nbgrader course folder at ``folder``
    (``instructor/classroom.py setup``: the course's config plus
    ``tests.notebook_tools.BUSY_MACHINE``, each chapter an assignment,
    ``generate_assignment`` done, nothing submitted) for the chapters ``notebooks``
    (default: chapter 01). The course is generated once a test run for each list of
    chapters, by whichever pytest worker asks first (the others wait on a lock), and
    copied: the autograde, sandbox, exchange, grade-index and class-report tests (and any
    new test of a graded course) pay for ``generate_assignment`` once between them."""
    from tests.notebook_tools import BUSY_MACHINE, NOTEBOOKS, load_module

    shared = run_folder(tmp_path_factory)
    classroom = load_module("instructor/classroom.py")

    def make(folder, notebooks=NOTEBOOKS[:1]):
        key = "-".join(nb.stem[:2] for nb in notebooks)
        made = shared / f"released-course-{key}"
        with _locked(str(made) + ".lock"):
            if not (made / ".done").exists():
                shutil.rmtree(made, ignore_errors=True)
                classroom.setup(made, notebooks)
                (made / ".done").touch()
        shutil.copytree(made, folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".done"))
        with (folder / "nbgrader_config.py").open("a") as f:
            f.write(BUSY_MACHINE)
        return folder

    return make
