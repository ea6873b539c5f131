# mtrain — two commands: `make run` and `make test`. Nothing is installed by hand.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
export YOLO_OFFLINE := 1
export ORT_DISABLE_TELEMETRY := 1
export MPLCONFIGDIR := $(CURDIR)/.yolo/mpl
export YOLO_CONFIG_DIR := $(CURDIR)/.yolo

.PHONY: run test bench lint venv venv-test render-env clean help

help:
	@echo "make run    set up .venv and start the companion on the bundled demo"
	@echo "make test   set up .venv (with training extras) and run the tests"
	@echo "make bench  run the benchmarks; results in benchmarks/results/"
	@echo "make lint   ruff (with the complexity limit), the import contracts and mypy"
	@echo "make render-env  Blender's Python module in .venv-render (photoreal generator, ~1.6 GB)"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# Runtime only: ONNX Runtime, OpenCV, Flask. No torch.
$(VENV)/.installed-run: pyproject.toml | $(PY)
	$(PIP) install --quiet -e .
	touch $@

# Tests, lint and training: adds pytest, hypothesis, ruff, mypy, import-linter,
# playwright, torch (its CPU wheel) and ultralytics.
# ultralytics pulls the GUI build of OpenCV; the headless build is put back
# so that the runtime needs no libGL.
$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PIP) install --quiet -e '.[dev,train]'
	$(PIP) install --quiet --force-reinstall --no-deps \
		"$$($(PIP) freeze | grep -i '^opencv-python-headless==')"
	touch $(VENV)/.installed-run $@

venv: $(VENV)/.installed-run
venv-test: $(VENV)/.installed-test

run: venv
	$(VENV)/bin/mtrain serve

# tests/test_architecture.py runs the import contracts and the complexity
# limit too, so `make test` alone keeps the architecture.
test: venv-test
	sh tests/browser/ensure_chromium.sh
	$(PY) -m pytest

bench: venv-test
	$(PY) -m benchmarks.run_all

lint: venv-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/mypy mtrain engine faults vision companion_app datasets training benchmarks tests

# The photoreal generator's renderer (the optional extra `render`) in a venv of its
# own: Blender's Python module is ~1.6 GB and wants Python 3.11 exactly. Nothing
# else installs it; `python -m datasets.photoreal` runs Blender through it.
RENDER_VENV := .venv-render
RENDER_PYTHON ?= python3.11

$(RENDER_VENV)/.installed: pyproject.toml
	$(RENDER_PYTHON) -m venv $(RENDER_VENV)
	$(RENDER_VENV)/bin/pip install --quiet "bpy==4.2.0"
	touch $@

render-env: $(RENDER_VENV)/.installed

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .import_linter_cache
