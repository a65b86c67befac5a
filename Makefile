# The course's commands. `make lab` and `make test` each build .venv first (once).
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Keep Jupyter and matplotlib state of the test run out of the home folder.
TESTENV := JUPYTER_CONFIG_DIR=$(CURDIR)/build/jupyter/config \
	JUPYTER_DATA_DIR=$(CURDIR)/build/jupyter/data \
	JUPYTER_RUNTIME_DIR=$(CURDIR)/build/jupyter/runtime \
	MPLCONFIGDIR=$(CURDIR)/build/mpl \
	PYDEVD_DISABLE_FILE_VALIDATION=1
NBVAL := --nbval --nbval-sanitize-with tests/sanitize.cfg --nbval-current-env

.PHONY: setup lab test lint fuzz notebooks figures bench bench-scalar bench-tensor constraints clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev,bench]'
	touch $(STAMP)

lab: $(STAMP)
	PATH=$(CURDIR)/$(BIN):$$PATH $(BIN)/jupyter lab --ServerApp.root_dir=$(CURDIR) \
		--LabApp.default_url=/lab/tree/notebooks/01_derivatives.ipynb \
		$(if $(filter 0,$(shell id -u)),--allow-root)

lint: $(STAMP)
	$(BIN)/ruff check .

# Everything: lint, unit/parity/property tests, the exercise round trip, the browser
# test and strict nbval over every chapter, in one pytest run on both cores.
test: $(STAMP) lint
	mkdir -p build/jupyter build/mpl
	$(TESTENV) $(BIN)/python -m pytest -n 2 --dist loadfile tests notebooks $(NBVAL)

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

# Re-pin every package after a change to pyproject.toml.
constraints: $(STAMP)
	$(BIN)/python scripts/freeze_constraints.py

clean:
	rm -rf $(VENV) build artifacts
