# Quick start: `make run` (the assistant in this terminal; `make run Q="70b int4 128k"` answers
# once) and `make test` (the whole suite). Both create .venv on first use.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
STAMP_TEST := $(VENV)/.installed-test

.PHONY: run test test-slow lint check-data lock clean image-test native native-clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): $(BIN)/python requirements.lock pyproject.toml
	$(BIN)/pip install -q -r requirements.lock
	$(BIN)/pip install -q --no-deps -e .
	@touch $@

$(STAMP_TEST): $(STAMP) requirements-test.lock
	$(BIN)/pip install -q -r requirements-test.lock
	@touch $@

run: $(STAMP)
ifdef Q
	@$(BIN)/vram ask "$(Q)"
else
	@$(BIN)/vram chat
endif

test: $(STAMP_TEST)
	$(BIN)/vram check-data
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

test-slow: $(STAMP_TEST)
	$(BIN)/python -m pytest -m slow

# Build deploy/Dockerfile with podman on a cached Debian base and test the running services in
# read-only containers on loopback (root, podman, runc, mmdebstrap; deploy/README.md).
image-test: $(STAMP_TEST)
	PYTHON=$(BIN)/python bash deploy/image-test.sh

# Optional: the engine's hot modules compiled to C with mypyc (deploy/native.py; needs a C
# compiler). The same sources, a quarter fewer instructions per warm answer; an edit after the
# build is noticed on import and the sources run until it is rebuilt.
native: $(STAMP_TEST)
	$(BIN)/python deploy/native.py

native-clean:
	$(BIN)/python deploy/native.py --clean

lint: $(STAMP_TEST)
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy

check-data: $(STAMP)
	$(BIN)/vram check-data

# Regenerate the lock files after changing dependencies in pyproject.toml.
# The last step pins the image builder's mypy (for deploy/native.py) at the test lock's versions.
lock: $(BIN)/python
	$(BIN)/pip install -q uv
	$(BIN)/uv pip compile pyproject.toml -q --python-version 3.11 -o requirements.lock
	$(BIN)/uv pip compile pyproject.toml -q --python-version 3.11 --extra test -o requirements-test.lock
	( printf '# The image installs exactly these pins, each with its hashes (pip --require-hashes).\n# Same versions as ../requirements.lock; regenerate both with `make lock`.\n'; \
	  $(BIN)/uv pip compile requirements.lock -q --python-version 3.11 --generate-hashes --no-header \
	    --index-url https://pypi.org/simple ) > deploy/requirements.image.lock
	grep -E '^(mypy|types-pyyaml)==' requirements-test.lock > deploy/requirements.native.in
	( printf '# The image builder compiles the engine with mypyc from exactly these pins, hashed (pip\n# --require-hashes); the same versions as ../requirements-test.lock. Regenerate with `make lock`.\n'; \
	  $(BIN)/uv pip compile deploy/requirements.native.in -q --python-version 3.11 -c requirements-test.lock \
	    --generate-hashes --no-header --no-annotate --index-url https://pypi.org/simple ) \
	  > deploy/requirements.native.lock.part
	rm deploy/requirements.native.in && mv deploy/requirements.native.lock.part deploy/requirements.native.lock

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis engine/_native.txt
	find engine -name '*.so' -delete
