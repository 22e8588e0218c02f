# Two commands for a newcomer: `make demo` (set up, generate sample deliveries, run the
# pipeline, print what it did) and `make test` (lint + every test). See README.md.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DELIVERIES ?= data/deliveries
# One path for a newcomer: make demo builds WAREHOUSE from LANDING, and make show, make report,
# make land and the README's "run dbt yourself" read the same two by default. make demo starts
# afresh only over a warehouse and landing folder it made (pipeline_demo/demo.py).
DEMO_WAREHOUSE := target/demo/rerun_safe.duckdb
DEMO_LANDING := target/demo/landing
WAREHOUSE ?= $(DEMO_WAREHOUSE)
LANDING ?= $(DEMO_LANDING)
# The demo's targets never paste a Make variable into a shell command: each recipe gets it in
# its environment as RERUN_SAFE_MAKE_<NAME> (target-specific `export`), and python -m
# pipeline_demo reads it there (pipeline_demo/inputs.py). Spaces, quotes, `;` and `$(...)` in
# a value are characters; a bad value fails with one line naming the variable.

.PHONY: setup setup-spark java spark-cluster spark-cluster-stop pytest-spark-cluster pytest-spark-session bench-spark bench-postgres bench-large demo show report land test lint pytest bench bench-quick bench-drift harness mutate faults clean

# `pip install -e .` installs the harness (the rerun-safe-harness distribution: harness/ only).
# This repository's own Python is not part of it: the dbt-duckdb plugin rerun_safe_duckdb
# (profiles.yml loads it, so `.venv/bin/dbt build` needs it from any folder) and
# pipeline_demo (sample deliveries, the demo); a .pth file puts the repository on the venv's path.
setup: $(VENV)/.installed

$(VENV)/.installed: requirements.txt requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt -c requirements.lock
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/python -c 'import pathlib, sys, sysconfig; pathlib.Path(sysconfig.get_paths()["purelib"], "rerun_safe_repository.pth").write_text(sys.argv[1] + "\n")' "$(CURDIR)"
	touch $@

# The Spark target (--target spark, tests/spark): dbt-spark with pyspark in .venv, and a Java
# runtime from the system packages when there is none (pyspark 4 needs Java 17 or later).
setup-spark: $(VENV)/.installed-spark java

$(VENV)/.installed-spark: $(VENV)/.installed requirements-spark.txt
	$(BIN)/pip install --quiet -r requirements-spark.txt -c requirements.lock
	touch $@

java:
	@command -v java >/dev/null || { apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless; }
	@java -version 2>&1 | head -1

# A standalone Spark cluster on 127.0.0.1 for `dbt ... --target spark_thrift` (tests/spark/cluster.py):
# a master, two workers (1 core, 1g each) and the Thrift server as the driver, ports chosen free,
# logs, warehouse and metastore in $(SPARK_CLUSTER_DIR). It prints the env vars the target
# reads and keeps running until `make spark-cluster-stop`. The tests start their own.
SPARK_CLUSTER_DIR ?= target/spark-cluster/make
spark-cluster: setup-spark
	$(BIN)/python -m tests.spark.cluster start $(SPARK_CLUSTER_DIR)

spark-cluster-stop:
	$(BIN)/python -m tests.spark.cluster stop $(SPARK_CLUSTER_DIR)

# The Spark lanes alone, one process each (tests/spark/conftest.py). The cluster lane
# (tests/spark/cluster_lane: the Spark scenarios on a cluster of its own, --target spark_thrift)
# is part of `make pytest`; the session lane (the same scenarios with --target spark, Spark inside
# the dbt process) runs only here.
pytest-spark-cluster: setup-spark
	$(BIN)/python -m pytest tests/spark/cluster_lane -q -rA --durations=0

pytest-spark-session: setup-spark
	RERUN_SAFE_SPARK_SESSION_LANE=1 $(BIN)/python -m pytest tests/spark --ignore=tests/spark/cluster_lane -q -rA --durations=0

# The benchmarks: one driver, python -m bench (bench/cli.py), each writing a results.json beside its
# page and the page from it (docs/benchmarks.md, "Commands").
# Spark locally and on the cluster side by side at 1M events (docs/benchmarks-spark.md): about 30 minutes.
bench-spark: setup-spark
	$(BIN)/python -m bench --target spark --size 1M

# Postgres (--target postgres) at 1M and 10M events (R1 on Postgres): a throw-away server of its
# own (tests/postgres/server.py, the PostgreSQL binaries .ci/run installs), a database per size.
bench-postgres: setup
	$(BIN)/python -m bench --target postgres --size 1M,10M

# One large history (100M events; SIZE=50M for a smaller one) against the per-row prediction of
# docs/benchmarks.md (docs/benchmarks-large.md). A history whose one build does not fit on the disk
# is built in STEPS dbt runs (0: the fewest that fit); refuses, before writing anything, a size that
# fits in no number of steps. SIZE and STEPS reach it in the environment (RERUN_SAFE_MAKE_SIZE,
# RERUN_SAFE_MAKE_STEPS), never pasted into the command; a bad value fails naming the variable.
SIZE ?= 100M
STEPS ?= 0
bench-large: export RERUN_SAFE_MAKE_SIZE = $(SIZE)
bench-large: export RERUN_SAFE_MAKE_STEPS = $(STEPS)
bench-large: setup
	$(BIN)/python -m bench large

# The demo holds back the deliveries' last day for `make land DAY=...`.
demo: export RERUN_SAFE_MAKE_DELIVERIES = $(DELIVERIES)
demo: export RERUN_SAFE_MAKE_LANDING = $(LANDING)
demo: export RERUN_SAFE_MAKE_WAREHOUSE = $(WAREHOUSE)
demo: setup
	$(BIN)/python -m pipeline_demo demo --hold-back 1

# The first LIMIT rows of one table or view of WAREHOUSE (pipeline_demo/show.py), read-only: the
# file is never created or written. TABLE is a name the warehouse's catalog lists, never SQL;
# LIMIT is 1-100000 or all. make show [TABLE=fct_daily_revenue] [LIMIT=20] [WAREHOUSE=...]
TABLE ?= fct_daily_revenue
LIMIT ?= 20
show: export RERUN_SAFE_MAKE_WAREHOUSE = $(WAREHOUSE)
show: export RERUN_SAFE_MAKE_TABLE = $(TABLE)
show: export RERUN_SAFE_MAKE_LIMIT = $(LIMIT)
show: setup
	@$(BIN)/python -m pipeline_demo show

# The pipeline report (pipeline_demo/report.py): one static HTML page of WAREHOUSE's runs, late
# queue, corrections and lateness, read from its run log (read-only); REPORT=page.html to choose
# the page (default: beside the warehouse, <name>.report.html).
report: export RERUN_SAFE_MAKE_WAREHOUSE = $(WAREHOUSE)
report: export RERUN_SAFE_MAKE_REPORT = $(REPORT)
report: setup
	@$(BIN)/python -m pipeline_demo report

# One more day of DELIVERIES into LANDING (pipeline_demo/land.py), for an incremental build to
# read: make land DAY=2026-11-10. A landed file of the same name with other content is refused.
land: export RERUN_SAFE_MAKE_DAY = $(DAY)
land: export RERUN_SAFE_MAKE_DELIVERIES = $(DELIVERIES)
land: export RERUN_SAFE_MAKE_LANDING = $(LANDING)
land: export RERUN_SAFE_MAKE_WAREHOUSE = $(WAREHOUSE)
land: setup
	@$(BIN)/python -m pipeline_demo land

# Python first (seconds): ruff check, ruff format --check and mypy over every Python folder
# (PYTHON_DIRS; configuration in pyproject.toml: mypy --strict, relaxed for tests/ and bench/ by
# per-module overrides; .pre-commit-config.yaml runs the same). ruff's banned-api rule (TID251)
# keeps pipeline_demo/, bench/ and mutation/ on the harness's public API (`from harness import ...`).
# Then the workflows: this repository's CI and the consumer template users copy
# (harness/templates/rerun-safe-pr.yml, what `rerun-safe init-ci` writes): actionlint (shellcheck
# on their run: scripts) and zizmor (offline: no network; pedantic: every audit), both binaries
# inside their pinned wheels.
# sqlfluff's dbt templater compiles against a warehouse: an empty one shows the full-refresh
# branches, one whose tables exist (seeds loaded, models built) shows the incremental branches. Lint both, in a warehouse
# of its own, so the result never depends on the state of the demo warehouse.
LINT_DIR := target/lint
PYTHON_DIRS := harness rerun_safe_duckdb pipeline_demo mutation bench tests
lint: setup
	$(BIN)/ruff check $(PYTHON_DIRS)
	$(BIN)/ruff format --check $(PYTHON_DIRS)
	$(BIN)/mypy
	$(BIN)/actionlint -shellcheck $(BIN)/shellcheck .github/workflows/ci.yml harness/templates/rerun-safe-pr.yml
	$(BIN)/zizmor --offline --persona=pedantic .github/workflows harness/templates/rerun-safe-pr.yml
	rm -rf $(LINT_DIR) && mkdir -p $(LINT_DIR)/landing
	DBT_DUCKDB_PATH=$(LINT_DIR)/lint.duckdb $(BIN)/sqlfluff lint models tests/dbt
	DBT_DUCKDB_PATH=$(LINT_DIR)/lint.duckdb $(BIN)/dbt build --quiet --exclude resource_type:test resource_type:unit_test \
		--target-path $(LINT_DIR)/dbt --vars '{landing_path: $(LINT_DIR)/landing}'
	DBT_DUCKDB_PATH=$(LINT_DIR)/lint.duckdb $(BIN)/sqlfluff lint models tests/dbt

pytest: setup setup-spark
	$(BIN)/python -m pytest -n 2 --dist loadscope --no-loadscope-reorder -q --durations=25

test: lint pytest

harness: setup
	$(BIN)/python -m harness all --deliveries $(DELIVERIES) --junit reports/harness.xml --summary reports/harness.md \
		--fault-var rerun_safe_fail_model --crash-points 3 --kill-points 2 --crash-batches 2

bench: setup
	$(BIN)/python -m bench --target duckdb --size full

# 1M and 3M events only: the same steps and ratios as `make bench`, with the full refresh and the
# one-pass floor at 3M (where R2 and RF are judged), the peer at 1M, no idempotency check and no
# memory run. Writes target/bench/quick/ (results.json, the page, the plot), never a committed page.
bench-quick: setup
	$(BIN)/python -m bench --target duckdb --size quick

# 100 consecutive daily batches on a 10M-event history, then two batches as-is vs after compaction
# (docs/benchmarks-drift.md): about 31 minutes.
bench-drift: setup
	$(BIN)/python -m bench drift

# Mutation score of the test suite (not part of `make test`): each mutant of mutation/mutants.yml
# applied alone to a copy of the project, its pytest subset run there; writes docs/testing.md (its
# "Last run" section) and the verdict tables mutation/mutants-verdicts.tsv, mutation/rules-verdicts.tsv.
mutate: setup
	nice -n 10 $(BIN)/python -m mutation

# The full fault campaign (tests/faults, 50 kill points per adapter + the server faults; make test runs its short form).
faults: setup
	FAULTS_FULL=1 $(BIN)/python -m pytest tests/faults -n 2 --dist loadscope -q -rP --durations=10

clean:
	rm -rf target data reports logs bench/out bench/out-drift bench/out-spark bench/out-postgres bench/out-large
