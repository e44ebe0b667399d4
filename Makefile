# SPDX-License-Identifier: Apache-2.0
# Entry points for people and CI. Every target installs missing Debian packages first.
JOBS ?= $(shell nproc)
BUILD ?= build
PRESET ?= release
CTEST_ARGS ?=

.PHONY: all deps configure build test test-full test-asan test-tsan demo format check-format clean

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake --preset $(PRESET) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# Default suite: everything except tests labelled `long` (GPU tests skip
# themselves with a message when no GPU is present).
test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE long $(CTEST_ARGS)

test-full: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# The quick and daemon tests under AddressSanitizer + UBSan, and under
# ThreadSanitizer (presets asan and tsan: no CUDA, benchmarks or header check;
# build-asan/ and build-tsan/). Tests labelled no_asan / no_tsan do not fit
# CI's time under that sanitizer (tests/sanitizers/labels.cmake says why and
# how long each takes); run them with CTEST_ARGS= SAN_EXCLUDE=long.
# Findings fail the test; suppressions of third-party code live in
# tests/sanitizers/ with the reason for each.
SAN_LABELS ?= ^(quick|daemon)$$
SAN_SUPP := $(CURDIR)/tests/sanitizers
test-asan: deps
	@cmake --preset asan >/dev/null
	@cmake --build build-asan -j $(JOBS)
	@cd build-asan && \
	  ASAN_OPTIONS=detect_leaks=1 \
	  LSAN_OPTIONS=suppressions=$(SAN_SUPP)/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -L '$(SAN_LABELS)' -LE '$(or $(SAN_EXCLUDE),long|no_asan)' $(CTEST_ARGS)

test-tsan: deps
	@cmake --preset tsan >/dev/null
	@cmake --build build-tsan -j $(JOBS)
	@cd build-tsan && \
	  TSAN_OPTIONS=suppressions=$(SAN_SUPP)/tsan.supp:halt_on_error=1:second_deadlock_stack=1:print_suppressions=0 \
	  ctest --output-on-failure -j $(JOBS) -L '$(SAN_LABELS)' -LE '$(or $(SAN_EXCLUDE),long|no_tsan)' $(CTEST_ARGS)

demo: build
	@./scripts/demo.sh $(BUILD)

# The C/C++/CUDA layout (.clang-format, clang-format 14): `format` rewrites
# every tracked source, `check-format` lists the files that differ and fails
# (CI runs it before the build). scripts/check-format.sh holds the file list
# and refuses other clang-format major versions.
format: deps
	@./scripts/check-format.sh --fix

check-format: deps
	@./scripts/check-format.sh

clean:
	@rm -rf $(BUILD) build-asan build-tsan
