# SPDX-License-Identifier: Apache-2.0
# Entry points for people and CI. Every target installs missing Debian packages first.
JOBS ?= $(shell nproc)
BUILD ?= build
PRESET ?= release
CTEST_ARGS ?=

.PHONY: all deps configure build test test-full demo format clean

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

demo: build
	@./scripts/demo.sh $(BUILD)

format:
	@git ls-files '*.hpp' '*.cpp' '*.cuh' '*.cu' | xargs clang-format -i

clean:
	@rm -rf $(BUILD)
