# The course's commands. `make lab` and `make test` each build .venv first (once).
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The venv's bytecode, compiled after the install (the grading sandbox binds the venv
# read-only: there a process would compile what it imports, every time it starts).
COMPILED := $(VENV)/.compiled
# Keep Jupyter and matplotlib state of the test run out of the home folder. Bytecode is
# written (__pycache__, gitignored) even where the shell sets PYTHONDONTWRITEBYTECODE, as
# this machine's does: else every pytest worker rewrote every test module's asserts and
# every process (nbval's kernels, the fork server, the judges) compiled minigrad again.
TESTENV := PYTHONDONTWRITEBYTECODE= \
	JUPYTER_CONFIG_DIR=$(CURDIR)/build/jupyter/config \
	JUPYTER_DATA_DIR=$(CURDIR)/build/jupyter/data \
	JUPYTER_RUNTIME_DIR=$(CURDIR)/build/jupyter/runtime \
	MPLCONFIGDIR=$(CURDIR)/build/mpl \
	PYDEVD_DISABLE_FILE_VALIDATION=1
# Whole files to each worker in tests/conftest.py's order (longest first), not xdist's
# default order by number of tests, which left long files of few tests (the browser
# tests, the round trip) for the end, one core working while the other waited. Three
# workers on two cores: the long files wait at times (kernels starting, nbgrader,
# Chromium), and a third worker uses the cores meanwhile; a fourth only added contention
# once grading's 60 s reply stalls were gone (pytest 466 s and 890 CPU s against 492 s and
# 940 CPU s with four, same host, one run each).
XDIST := -n 3 --dist loadfile --no-loadscope-reorder
NBVAL := --nbval --nbval-sanitize-with tests/sanitize.cfg --nbval-current-env
# The chapters' own kernel, python3: LABKERNELS' forked one (below).
NBVAL_LAB := --nbval --nbval-sanitize-with tests/sanitize.cfg

.PHONY: setup lab lab-instructor reset solution course test lint book fuzz notebooks \
	figures bench bench-scalar bench-tensor bench-grading constraints test-latest clean

setup: $(COMPILED)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# A .venv from before the rename holds the old distribution name: drop it.
	$(BIN)/python -m pip uninstall -q -y minigrad 2>/dev/null || true
	# pip 26 resolves the ~170 pins in half the time of the venv's own pip 23: the install
	# took 44 and 45 s with this step, 43 to 57 s (52 on average, four runs) without it.
	$(BIN)/python -m pip install -q --no-compile pip==26.3
	# pip compiles the bytecode of ~13,000 files on one core; compileall on both makes the
	# same files ($(COMPILED)): 79 -> 62 s here.
	$(BIN)/python -m pip install -q --no-compile -c constraints.txt -e '.[course,dev,bench,book]'
	touch $(STAMP)

# Like pip, compileall skips files that do not compile (a few packages ship Python 2 test
# data). Up to date, it only reads the files' times (about 3 s).
$(COMPILED): $(STAMP)
	$(BIN)/python -m compileall -qq -j 0 "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" || true
	touch $(COMPILED)

ROOTFLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

# The chapters' kernel, python3, forked from a server with torch imported (a new kernel
# is ready with its imports done: minigrad/course/lab_kernels.py), first on Jupyter's path.
LABKERNELS := JUPYTER_PATH=$(CURDIR)/build/lab-jupyter$${JUPYTER_PATH:+:$$JUPYTER_PATH}

# The learner's path: workspace/ holds the student version of every chapter (new
# chapters are added; your work is never overwritten).
lab: $(COMPILED)
	$(BIN)/python scripts/workspace.py build
	$(BIN)/python -m minigrad.course.lab_kernels build/lab-jupyter >/dev/null
	$(LABKERNELS) PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/jupyter lab \
		--ServerApp.root_dir=$(CURDIR)/workspace \
		--LabApp.default_url=/lab/tree/01_derivatives.ipynb $(ROOTFLAG)

# One chapter of the workspace afresh (your copy is kept in workspace/.previous/): make reset CH=04
reset: $(STAMP)
	$(BIN)/python scripts/workspace.py reset $(CH)

# The reference solution of one exercise, when you decide to look: make solution EX=4.3
solution: $(STAMP)
	@$(BIN)/python scripts/workspace.py solution $(EX)

# The instructor's view: the nbgrader source chapters, solutions and hidden tests shown.
lab-instructor: $(COMPILED)
	$(BIN)/python -m minigrad.course.lab_kernels build/lab-jupyter >/dev/null
	$(LABKERNELS) PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/jupyter lab \
		--ServerApp.root_dir=$(CURDIR) \
		--LabApp.default_url=/lab/tree/notebooks/01_derivatives.ipynb $(ROOTFLAG)

# An nbgrader course folder, course/, with every chapter as an assignment (see README).
course: $(COMPILED)
	$(BIN)/python instructor/classroom.py setup course

lint: $(STAMP)
	$(BIN)/ruff check .

# Everything: lint, the book, unit/parity/property tests, the exercise round trip, the
# browser tests (JupyterLab and the book) and strict nbval over every chapter (plus the
# same comparison in nbgrader's run of the round trip's instructor submission, which holds
# the wrong-answer pass: tests/wrong_answer_submission.py), in one pytest run on both cores.
# nbval runs each chapter in the kernel `make lab` gives a learner, forked (LABKERNELS);
# `make notebooks` builds them in new Pythons.
# On a venv `make setup` has not compiled (a fresh clone), only the bytecode of what the
# grading sandbox imports is written first (scripts/warm_bytecode.py: some 2,900 files,
# 14 CPU s on one core, while the book builds on the other), not the whole venv's
# ($(COMPILED): 12,900 files, 50 CPU s on both cores); what else the run imports is
# compiled, once, by the first process that imports it, outside the sandbox.
test: $(STAMP) lint
	test -f $(COMPILED) || $(BIN)/python scripts/warm_bytecode.py & warming=$$!; \
		$(MAKE) --no-print-directory book; built=$$?; wait $$warming && test $$built = 0
	mkdir -p build/jupyter build/mpl
	$(BIN)/python -m minigrad.course.lab_kernels build/lab-jupyter >/dev/null
	# minigrad's bytecode before any sandboxed process imports it (the sandbox binds the
	# checkout read-only: there each process would compile what it imports, every time)
	$(BIN)/python -m compileall -q -j 0 minigrad >/dev/null
	$(TESTENV) $(LABKERNELS) $(BIN)/python -m pytest $(XDIST) tests notebooks $(NBVAL_LAB)

# The chapters as a static site in build/book/ (Jupyter Book 1; MathJax and the widgets'
# JavaScript come from the npm registry once, into build/book-assets/). Open
# build/book/index.html; tests/test_book.py checks every page in Chromium.
book: $(STAMP)
	$(BIN)/python scripts/build_book.py

# The differential fuzzer at length: 5000 new programs run in torch and minigrad (the
# test suite runs 1000 fixed ones). A failing program is printed: keep it as a named case
# in tests/test_edges.py.
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz nice -n 10 $(BIN)/python -m pytest -q tests/test_fuzz.py

# Rebuild the chapters from notebooks/src and execute them in a fresh kernel.
notebooks: $(STAMP)
	$(TESTENV) $(BIN)/python scripts/build_notebooks.py

figures: $(STAMP)
	MPLCONFIGDIR=$(CURDIR)/build/mpl $(BIN)/python scripts/make_figures.py

bench: bench-scalar bench-tensor

bench-scalar: $(STAMP)
	$(BIN)/python benchmarks/bench_scalar.py

bench-tensor: $(STAMP)
	$(BIN)/python benchmarks/bench_tensor.py

# CPU a graded submission, classroom.py's grade against the old way, same grades.
bench-grading: $(COMPILED)
	$(TESTENV) $(BIN)/python benchmarks/bench_grading.py

# A warning before learners hit it: a second environment with the newest release of
# every dependency (pyproject's ranges, no constraints) except torch, kept at the pinned
# CPU build, then the whole suite in it. Run it before a course run and monthly; a
# failure names a release that will break a chapter for learners (README).
LATEST := build/venv-latest
test-latest: lint
	rm -rf $(LATEST)
	$(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install -q --upgrade pip
	$(LATEST)/bin/python -m pip install -q --upgrade --upgrade-strategy eager \
		-e '.[course,dev,bench,book]' torch==2.13.0
	$(LATEST)/bin/python scripts/compare_pins.py | tee build/latest-versions.txt
	$(LATEST)/bin/python scripts/build_book.py || echo "test-latest: the book did not build"
	mkdir -p build/jupyter build/mpl
	$(TESTENV) $(LATEST)/bin/python -m pytest $(XDIST) tests notebooks $(NBVAL)

# Re-pin every package after a change to pyproject.toml.
constraints: $(STAMP)
	$(BIN)/python scripts/freeze_constraints.py

clean:
	rm -rf $(VENV) build artifacts
