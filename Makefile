# deepnb's everyday commands:
#   make lab    JupyterLab on the demo notebooks (offline, no API key)
#   make check  the quick check while you work: lint, then the tests that need no kernel or browser
#   make test   the whole test suite (installs what it needs first)
#   make docs   the documentation site, into site/ (make docs-check: the strict build make test runs)

PYTHON ?= python3

# Python writes bytecode here whatever the environment says (some set PYTHONDONTWRITEBYTECODE):
# without it every process the suite starts, each kernel, server and command, compiles the agent
# stack from source again (about 2.5 s of CPU each, against 1.7 s for the whole import with it).
unexport PYTHONDONTWRITEBYTECODE
VENV   ?= .venv
BIN    := $(VENV)/bin
comma  := ,
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
ROOT_OK := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

.PHONY: lab test test-ready lint bench debian-packages chromium redis-server agent-server constraints constraints-lowest clean widgets \
        docs docs-check

# The front end: TypeScript in widgets/src, bundled by esbuild into deepnb/_widgets/ (committed, so
# Binder and `pip install` need no Node.js). Rebuilt only when a source is newer than the bundle.
WIDGET_SOURCES := $(shell find widgets/src widgets/scripts -type f 2>/dev/null) \
                  widgets/package.json widgets/package-lock.json widgets/tsconfig.json
WIDGET_BUNDLE  := deepnb/_widgets/run_view.js
NODE_MODULES   := widgets/node_modules/.installed

# Every virtualenv's packages are installed by uv (pip took minutes where uv takes seconds), itself
# put into .venv by pip at constraints.txt's version. $(call UV_INSTALL,VENV,ARGS) installs into VENV.
UV := $(BIN)/uv
UV_INSTALL = $(UV) pip install --quiet --python $(1)/bin/python $(2)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(UV): constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet -c constraints.txt uv
	touch $@

# make lab's JupyterLab, in a virtualenv of its own that nothing else installs into (the tests' and
# the docs' tools bring server extensions, real-time collaboration and jupytext among them, that
# would change what it serves): deepnb with every extra a shipped notebook needs, the extras
# binder/requirements.txt gives Binder. Made anew when pyproject.toml or constraints.txt change, so
# it holds exactly that. The notebooks' tests run their kernels in it.
LAB_VENV   := .venv-lab
LAB_EXTRAS := lab,openai,anthropic,mcp

$(LAB_VENV)/.installed: pyproject.toml constraints.txt | $(UV)
	rm -rf $(LAB_VENV) && $(PYTHON) -m venv $(LAB_VENV)
	$(call UV_INSTALL,$(LAB_VENV),-c constraints.txt -e ".[$(LAB_EXTRAS)]")
	touch $@

$(VENV)/.installed-test: pyproject.toml constraints.txt | $(UV)
	$(call UV_INSTALL,$(VENV),-c constraints.txt -e ".[lab$(comma)test]")
	touch $@

$(NODE_MODULES): widgets/package.json widgets/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  cd widgets && npm ci --no-audit --no-fund && touch node_modules/.installed; \
	else echo "Node.js not found: the front end's own tests will be skipped"; fi

# One command writes every bundle and stylesheet; run_view.js stands for all of them.
$(WIDGET_BUNDLE): $(WIDGET_SOURCES)
	@if command -v npm >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory $(NODE_MODULES) && cd widgets && npm run --silent build; \
	else echo "Node.js not found: using the committed front end in deepnb/_widgets/"; fi

widgets: $(WIDGET_BUNDLE)

lab: $(LAB_VENV)/.installed $(WIDGET_BUNDLE)
	$(LAB_VENV)/bin/jupyter lab $(ROOT_OK) notebooks/quickstart.ipynb

# Debian's packages the tests use, installed together when missing (one apt-get: two at once
# would fight over dpkg's lock): chromium for the browser tests, and Redis for the scale-out test
# (two Agent Server replicas share one Redis and one PostgreSQL).
DEBIAN_PACKAGES := chromium redis-server

debian-packages:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do command -v $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; fi

chromium redis-server: debian-packages

# The self-hosted Agent Server (MIT langhost: stock langgraph-api on PostgreSQL + Redis) in its own
# virtualenv, since it pins its own langgraph-api. deepnb goes in from this checkout (no
# dependencies: the served graph needs only its scripted model) so the served graph runs offline.
# The versions follow constraints.txt except the packages langhost pins differently. About a minute.
AGENT_VENV := .venv-agent-server
AGENT_PINNED_ELSEWHERE := langgraph-api|langgraph-runtime-inmem|langgraph-checkpoint-postgres|grpcio[a-z-]*|opentelemetry-[a-z-]*|sse-starlette

$(AGENT_VENV)/.installed: tests/support/scaleout_app/requirements.txt constraints.txt | $(UV)
	rm -rf $(AGENT_VENV) && $(PYTHON) -m venv $(AGENT_VENV)
	grep -vE '^($(AGENT_PINNED_ELSEWHERE))==' constraints.txt > $(AGENT_VENV)/constraints.txt
	$(call UV_INSTALL,$(AGENT_VENV),-c $(AGENT_VENV)/constraints.txt -r tests/support/scaleout_app/requirements.txt)
	$(call UV_INSTALL,$(AGENT_VENV),--no-deps -e .)
	touch $@

agent-server: $(AGENT_VENV)/.installed redis-server

# The real inspect-ai, whose reader the tests give exp.to_inspect()'s logs, in a virtualenv of its
# own (its dependencies would pin the tests' own); the version the logs were checked with.
INSPECT_VENV := .venv-inspect

$(INSPECT_VENV)/.installed: | $(UV)
	rm -rf $(INSPECT_VENV) && $(PYTHON) -m venv $(INSPECT_VENV)
	$(call UV_INSTALL,$(INSPECT_VENV),inspect-ai==0.3.285)
	touch $@

# Arize Phoenix, the OpenTelemetry collector the trace tests read spans back from, in its own
# virtualenv (it brings many dependencies of its own); the version pinned here.
PHOENIX_VENV := .venv-phoenix

$(PHOENIX_VENV)/.installed: | $(UV)
	rm -rf $(PHOENIX_VENV) && $(PYTHON) -m venv $(PHOENIX_VENV)
	$(call UV_INSTALL,$(PHOENIX_VENV),arize-phoenix==20.26.1)
	touch $@

# The documentation site (mkdocs.yml, docs/): the guide, the demo notebooks from their saved outputs and
# the API reference. docs-check builds it strictly (a broken link or reference, any warning, fails)
# into a throwaway folder; make test runs it.
docs: $(VENV)/.installed-test
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --quiet

docs-check: $(VENV)/.installed-test
	@d=$$(mktemp -d -t deepnb-docs-XXXXXX); \
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir $$d; status=$$?; rm -rf $$d; exit $$status

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy

# The check to run before a commit, its three parts side by side (each one's output printed when it
# ends): lint (mypy incremental, its cache kept in .mypy_cache), the front end's type check and
# tests (where Node.js is installed; again only once a widget source or test changed since they
# last passed), and the tests that need no apt, browser, Binder or kernel:
# tests/unit, tests/shell and the security tests of those kinds (tests/security mixes kinds; its
# kernel and browser tests are marked), on both cores (pytest-xdist, a test file per worker at a
# time, so a module's fixtures are made once) in a random order (pytest-randomly; the seed is
# printed first, and `SEED=N make check-tests` runs that order again). Of those, only the tests
# that the Python changed since they last passed reaches are run (pytest-testmon: .testmondata
# holds which code each test ran; a failed test runs again until it passes); a change to any other
# file of the project (a page, a demo script, the widget bundle, the Makefile: what tests read, which
# coverage cannot see) runs them all, as does `ALL=1 make check`. The pytest plugins these
# tests have no use for stay out, since each costs seconds at every worker's start: nbval (the
# notebooks are make test's) and those langsmith and hypothesis install.
CHECK_TESTS   := tests/unit tests/shell tests/security
CHECK_MARKERS := not kernel and not browser and not binder
CHECK_PYTEST  := -o addopts="-ra --strict-markers" -p no:nbval -p no:hypothesispytest -p no:langsmith_plugin \
                 -p randomly -n 2 --dist loadfile
# The files besides Python that the checked tests read, as one fingerprint: testmon keeps what each
# test ran per fingerprint, so a new one (a changed page, script or bundle) has none and runs all.
CHECK_FILES_STATE = $$(git ls-files -co --exclude-standard -- ':!:*.py' ':!:*.png' | LC_ALL=C sort \
                    | xargs -d '\n' sha256sum 2>/dev/null | sha256sum | cut -c1-16)
CHECK_SELECT  = $(if $(ALL),--testmon-noselect,--testmon-forceselect) --testmon-env=files-$(CHECK_FILES_STATE)
WIDGET_TESTS  := $(shell find widgets/test -type f 2>/dev/null)
WIDGETS_CHECKED := widgets/node_modules/.checked

.PHONY: check check-lint check-widgets check-tests
check: $(VENV)/.installed-test $(NODE_MODULES)
	@$(MAKE) --no-print-directory -j3 --output-sync=target check-lint check-widgets check-tests

check-lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy

check-widgets:
	@if command -v npm >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory $(WIDGETS_CHECKED); \
	else echo "Node.js not found: the front end's type check and tests are skipped"; fi

$(WIDGETS_CHECKED): $(WIDGET_SOURCES) $(WIDGET_TESTS)
	cd widgets && npm run --silent typecheck && npm test --silent -- --test-concurrency=2
	touch $@

check-tests:
	@seed=$${SEED:-$$(date +%s)}; echo "tests in a random order: SEED=$$seed make check-tests runs it again"; \
	$(BIN)/python -m pytest -q $(CHECK_PYTEST) $(CHECK_SELECT) --randomly-seed=$$seed -m "$(CHECK_MARKERS)" $(CHECK_TESTS)

# The whole suite in two steps. First everything it installs, side by side (downloads, mostly):
# the virtualenvs, Debian's packages, the front end's packages and bundle. Then the lint, the
# strict docs build and the test parts, all side by side: most of the parts' time goes on waiting
# for kernels, browsers and servers, so they overlap well even on two cores. Each part has its own
# temporary folder (pytest prunes old numbered ones, another part's included) and cache; its output
# is printed when it ends, and any part failing fails the target. The first four run every test
# folder once, each one test at a time: more workers inside a part (two JupyterLabs and Chromiums)
# stretched browser and kernel waits past their bounds on two cores; test-lowest runs the quick
# folders again on the lowest versions pyproject.toml allows, so that its floors stay true. Each
# part is a chain of tests run one after the other, so the longest chain sets the suite's time:
# the browsers (each test loads JupyterLab in Chromium) are the longest and cannot be cut in two,
# and the others are cut to end before them: the notebooks, kernels and served agents; the units
# and shell; the integration and security tests.
TEST_PARTS := test-browsers test-notebooks-kernels-served test-units-shell test-integration-security test-lowest
.PHONY: $(TEST_PARTS)

test:
	@$(MAKE) --no-print-directory -j4 test-ready
	@$(MAKE) --no-print-directory $(WIDGET_BUNDLE)
	@$(MAKE) --no-print-directory -j7 --output-sync=target lint docs-check $(TEST_PARTS)

# pytest from the virtualenv whose bin is $(1), on $(2); each part ends with its slowest tests,
# writes every test's outcome and time to test-artifacts/<part>.xml (JUnit XML), and says how long
# it took and the processor time it used (the shell's builtin `times`: its second line is pytest's
# with every process pytest waited for, user then system), which tells where CI's time goes
PYTEST_IN = d=$$(mktemp -d -t deepnb-$@-XXXXXX); started=$$(date +%s); \
	$(1)/python -m pytest --basetemp=$$d -o cache_dir=.pytest_cache/$@ --durations=15 \
	--junitxml=test-artifacts/$@.xml $(2); \
	status=$$?; rm -rf $$d; \
	echo "$@: $$(( $$(date +%s) - started )) s, processor time (user, system):"; times; exit $$status
PYTEST_PART = $(call PYTEST_IN,$(BIN),$(1))

test-browsers:
	@$(call PYTEST_PART,tests/browser)

test-notebooks-kernels-served:
	@$(call PYTEST_PART,--notebook-venv=$(LAB_VENV) notebooks tests/notebooks tests/kernel tests/served)

test-units-shell:
	@$(call PYTEST_PART,tests/unit tests/shell)

test-integration-security:
	@$(call PYTEST_PART,tests/integration tests/security)

# The floors: deepnb with its lab, openai, anthropic and postgres extras and the test runner,
# each direct dependency at the lowest version pyproject.toml allows (constraints-lowest.txt), in
# a virtualenv of its own; uv installs it in well under a minute. Extras that would lift a floor
# of deepnb's own stay out: parquet (pyarrow wants NumPy 2: pandas and scipy) and mcp (mcp 1.22
# wants jsonschema 4.20); so do the browsers and servers of the test extra, which these tests do
# not need, but for pgserver, the PostgreSQL the postgres extra's tests run against.
LOWEST_VENV   := .venv-lowest
LOWEST_EXTRAS := lab,openai,anthropic,postgres
LOWEST_TOOLS  := pytest pytest-timeout nbval jupyter_client pgserver
# The tests: the quick folders, and of the kernel tests those whose outcome the kernel's side
# decides (ipykernel, ipywidgets, anywidget, jupyter_client at their floors): a run's live view,
# approval clicks that reach a running cell, and interrupts. The other kernel tests drive deepnb's
# own code over that same protocol; the unit tests already run that code at the floors. Tests
# marked `volume` stay out: they check a bound of deepnb's own code at scale (thousands of rows,
# runs or steps), and the same paths run at the floors at small sizes.
LOWEST_KERNEL := tests/kernel/test_kernel.py tests/kernel/test_kernel_approvals.py tests/kernel/test_kernel_interrupts.py
LOWEST_TESTS  := tests/unit tests/shell $(LOWEST_KERNEL) tests/integration/test_postgres.py

$(LOWEST_VENV)/.installed: pyproject.toml constraints-lowest.txt | $(UV)
	rm -rf $(LOWEST_VENV) && $(PYTHON) -m venv $(LOWEST_VENV)
	$(BIN)/python scripts/lowest_tools.py $(LOWEST_TOOLS) > $(LOWEST_VENV)/tools.in
	$(call UV_INSTALL,$(LOWEST_VENV),-c constraints-lowest.txt -e ".[$(LOWEST_EXTRAS)]" -r $(LOWEST_VENV)/tools.in)
	touch $@

test-lowest: $(LOWEST_VENV)/.installed
	@$(call PYTEST_IN,$(LOWEST_VENV)/bin,-m "not volume" $(LOWEST_TESTS))

# What make test installs before its parts start.
test-ready: $(VENV)/.installed-test $(LAB_VENV)/.installed $(LOWEST_VENV)/.installed debian-packages \
            $(AGENT_VENV)/.installed $(INSPECT_VENV)/.installed $(PHOENIX_VENV)/.installed $(NODE_MODULES)

bench: $(VENV)/.installed-test agent-server $(PHOENIX_VENV)/.installed
	$(BIN)/python bench/overhead.py
	$(BIN)/python bench/subagents.py
	$(BIN)/python bench/files.py
	$(BIN)/python bench/longrun.py
	$(BIN)/python bench/remote.py
	$(BIN)/python bench/batch_display.py
	$(BIN)/python bench/experiment.py
	$(BIN)/python bench/evidence.py
	$(BIN)/python bench/report.py
	$(BIN)/python bench/graph.py
	$(BIN)/python bench/tracing.py

# The newest versions pyproject.toml allows, frozen into constraints.txt (a throwaway virtualenv).
constraints:
	rm -rf .constraints-venv && $(PYTHON) -m venv .constraints-venv
	.constraints-venv/bin/pip install --quiet ".[lab,test,openai,anthropic]"
	{ sed -n '1,3p' constraints.txt; .constraints-venv/bin/pip freeze | grep -v '^deepnb'; } > constraints.new
	mv constraints.new constraints.txt && rm -rf .constraints-venv

# The lowest versions pyproject.toml allows for what .venv-lowest installs (uv's lowest-direct
# resolution: every direct dependency at its floor, the rest as new as they go with them), frozen
# into constraints-lowest.txt for Python 3.11. Regenerate after changing a floor or an extra.
constraints-lowest: $(VENV)/.installed-test
	$(BIN)/python scripts/lowest_tools.py $(LOWEST_TOOLS) > .constraints-lowest-tools.in
	{ sed -n '1,4p' constraints-lowest.txt; \
	  $(BIN)/uv pip compile --quiet --python-version 3.11 --resolution lowest-direct --no-header \
	    --no-annotate --no-emit-package deepnb $(foreach e,$(subst $(comma), ,$(LOWEST_EXTRAS)),--extra $(e)) \
	    pyproject.toml .constraints-lowest-tools.in; } > constraints-lowest.new
	mv constraints-lowest.new constraints-lowest.txt && rm .constraints-lowest-tools.in

clean:
	rm -rf $(VENV) $(LAB_VENV) $(AGENT_VENV) $(LOWEST_VENV) $(INSPECT_VENV) $(PHOENIX_VENV) build dist site .cache/mkdocs-jupyter .pytest_cache .testmondata* \
	  widgets/node_modules widgets/.test-build
