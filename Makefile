# Two set-up commands do everything on a fresh machine: `make preview` and `make test`.
# Both create the virtualenv from uv.lock when it is missing or out of date.
PYTHON ?= python3
UV_VERSION := 0.13.8
TOOLS := .tools
UV := $(TOOLS)/bin/uv
VENV := .venv
STAMP := $(VENV)/.synced-$(UV_VERSION)
# Every stack file in stacks/: the reference stacks and any you add (each gets the same offline checks).
STACKS := $(sort $(wildcard stacks/Pulumi.*.yaml))
GPUPLAN := $(VENV)/bin/gpuplan

.PHONY: setup preview policy typecheck test bench oracle clean

$(UV):
	@echo "== setup: installing uv $(UV_VERSION) into $(TOOLS)/ (first run only, a few seconds)"
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

$(STAMP): pyproject.toml uv.lock | $(UV)
	@echo "== setup: creating $(VENV) from uv.lock (about a minute the first time; again only when uv.lock changes)"
	$(UV) sync --frozen --all-extras --all-groups --compile-bytecode --python $(PYTHON)
	touch $@

setup: $(STAMP)

preview: setup
	@echo "== make preview: each stack in stacks/ run offline (a few seconds each; the first call loads the schemas)"
	@set -e; for stack in $(STACKS); do \
		echo "== gpuplan preview --config $$stack"; \
		$(GPUPLAN) preview --config $$stack; \
	done

policy: setup
	@echo "== make policy: each stack in stacks/ through the policy pack, offline"
	@set -e; for stack in $(STACKS); do \
		echo "== gpuplan policy --config $$stack"; \
		$(GPUPLAN) policy --config $$stack; \
	done

# mypy --strict on the pure layers ([tool.mypy] in pyproject.toml: it reads components/, the source
# root); its cache is build/mypy_cache (a few seconds cold, under a second warm).
typecheck: setup
	$(VENV)/bin/mypy

test: setup
	@echo "== make test: lint (ruff), format check, import contracts, types (mypy), then pytest on 2 workers (a few minutes)"
	$(VENV)/bin/ruff check --quiet .
	$(VENV)/bin/ruff format --check --quiet .
	$(VENV)/bin/lint-imports --no-cache
	@$(MAKE) --no-print-directory typecheck
	$(VENV)/bin/python -m pytest -n 2

bench: setup
	$(VENV)/bin/python -m bench

# The differential tests against the real allocator (the dra-oracle commands; tests/dra/oracle.py) with many cases per minor.
oracle: setup
	ORACLE_EXAMPLES=$${ORACLE_EXAMPLES:-2000} $(VENV)/bin/python -m pytest -q -n 2 tests/dra/test_oracle_differential.py

clean:
	rm -rf build .pytest_cache .hypothesis
