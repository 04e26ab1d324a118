# Top-level entry points. The two that matter: `make check` (every test) and `make bench`
# (the stock-vs-patched benchmark and its report). Both install their own dependencies.
# Big artefacts live in LAB_CACHE (default ~/.cache/nfsra-lab), outside the clone.

SHELL := /bin/bash
LAB := lab
OUT ?= out
GUEST_TESTS ?= $(sort $(wildcard tests/guest/*.sh))
PY = $$(. $(LAB)/lib.sh; echo $$VENV)/bin/python

.PHONY: all check deps lint unit series bisect build-stock build-patched guest-tests \
	bench overhead stress patches tree clean help

all: help

help:
	@echo "make check          every test: lint, unit, series, build, boot, in-guest tests"
	@echo "make bench          stock vs patched benchmark and report (QUICK=1 for a subset;"
	@echo "                    SCENARIOS=lab/scenarios/x.toml, BENCH_OUT=dir to choose)"
	@echo "make stress         reliability: debug kernel (KASAN, lockdep...), peer tools, faults,"
	@echo "                    load; report in out/stress/report.md (STRESS_SHORT=1: briefly)"
	@echo "make overhead       cost of the readahead stats: stock, patched, patched without them"
	@echo "make patches        regenerate patches/ from the dev trees (LAB_CACHE/linux, and"
	@echo "                    LAB_CACHE/nfs-utils/tree for patches/nfs-utils/)"
	@echo "make tree           create the dev trees' commits from patches/ on a fresh machine"
	@echo "make build-stock | build-patched | guest-tests | lint | unit | series | bisect [FULL=1]"

deps:
	@$(LAB)/deps.sh

lint: deps
	@shellcheck -x -S warning $(LAB)/*.sh $(LAB)/guest/*.sh $(LAB)/guest/ns-ssh tests/guest/*.sh tests/stress/*.sh .ci/run
	@$$(. $(LAB)/lib.sh; echo $$VENV)/bin/ruff check --quiet --config $(LAB)/ruff.toml $(LAB) tests
	@echo "lint: ok"

unit: deps
	@$(PY) -m pytest -q tests/unit

series: deps
	@$(LAB)/check-series.sh

bisect: build-patched
	@FULL=$(FULL) $(LAB)/bisect-check.sh

build-stock: deps
	@$(LAB)/build.sh stock >/dev/null

build-patched: deps
	@$(LAB)/build.sh patched >/dev/null

guest-tests: build-patched
	@$(LAB)/guest-tests.sh patched $(OUT)/check $(GUEST_TESTS)

check: lint unit series build-patched bisect guest-tests
	@echo "check: all passed"

SCENARIOS ?= $(sort $(wildcard lab/scenarios/*.toml))
bench: deps
	@$(PY) $(LAB)/bench.py $(if $(QUICK),--quick) $(if $(BENCH_OUT),--out $(BENCH_OUT)) $(SCENARIOS)

stress: deps
	@$(LAB)/stress.sh $(if $(STRESS_OUT),$(STRESS_OUT))

overhead: deps
	@$(PY) $(LAB)/overhead.py $(if $(OVERHEAD_OUT),--out $(OVERHEAD_OUT))

patches:
	@$(LAB)/patches.sh export
	@SERIES=nfs-utils $(LAB)/patches.sh export

tree:
	@$(LAB)/patches.sh tree
	@SERIES=nfs-utils $(LAB)/patches.sh tree

clean:
	rm -rf $(OUT)
