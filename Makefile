# PDF Gateway — every entry point a person or CI uses. `make help` lists them.
SHELL := /bin/bash
SWIFT ?= swift
STORE ?= ./data

.PHONY: help deps build run demo test lint format bench fixtures clean

help:
	@echo "make run      install dependencies, build, and start the gateway on 127.0.0.1:8080 with ./data"
	@echo "make demo     file the fixture PDFs into ./data and list them (no server)"
	@echo "make test     install dependencies, build, and run the whole test suite"
	@echo "make bench    build in release mode and print the benchmarks"
	@echo "make lint     check formatting (swift format, hummingbird's .swift-format) and the Python (pyflakes)"
	@echo "make format   apply formatting"
	@echo "make fixtures regenerate Fixtures/ with real tools"

deps:
	@bash scripts/install-deps.sh

build: deps
	$(SWIFT) build

# The gateway on the embedded default: loopback, a store in $(STORE), local converters.
run: build
	.build/debug/pdfgate serve --store "$(STORE)"

# Files the fixture PDFs into $(STORE) and lists the library, without the server.
demo: build
	@bash scripts/demo.sh "$(STORE)"

# Tests spend most of their time waiting on real tools, servers and sockets, so they run side by
# side, but only TEST_WIDTH at a time: on two cores, more would starve real converters into
# false timeouts. Suites whose tests share a tool or a bound are `.serialized` in themselves.
# The suites whose subject is a deadline or a delay (TIMED_SUITES) run afterwards, one test at a
# time, so what they measure is the code and not the machine's load.
TEST_WIDTH ?= 4
# The one test that is a long chain by itself (schemathesis: about two minutes of one core, four
# times that when it starts late in a loaded pass) runs from the start in a second process beside
# the side-by-side pass; its output follows the pass's. It runs the test bundle itself: a second
# `swift test` would wait for the first to release SwiftPM's lock on .build.
FUZZ_TEST := APIFuzzTests/schemathesisFindsNothing
TIMED_SUITES := LocalConverterTests/Calibre/|HTTPClientSharedLoopTests|ConvertCLITests|RemoteGatewayConverterTests|RemoteGatewayPollingTests|GotenbergConverterTests|HTTPClientFailureTests|HTTPClientConcurrencyTests|MisbehavingConverterJobTests|PoolBehaviourTests|HostileFixtureTests
test: deps lint
	@bash scripts/check-compose.sh
	@bash scripts/python-venv.sh > /dev/null
	@bash scripts/python-venv.sh gotenberg-suite > /dev/null
	$(SWIFT) build --build-tests
	@status=0; tests="$$($(SWIFT) build --show-bin-path)/PDFGatewayPackageTests.xctest"; \
	  NO_COLOR=1 "$$tests" --testing-library swift-testing --filter '$(FUZZ_TEST)' > .build/fuzz-test.log 2>&1 & fuzz=$$!; \
	  SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(SWIFT) test --skip-build --disable-xctest \
	    --skip '$(TIMED_SUITES)|$(FUZZ_TEST)' || status=1; \
	  wait $$fuzz || status=1; \
	  echo "── $(FUZZ_TEST), run beside the pass above:"; cat .build/fuzz-test.log; exit $$status
	$(SWIFT) test --skip-build --disable-xctest --no-parallel --filter '$(TIMED_SUITES)'
	@bash scripts/gotenberg-upstream/run.sh .build/debug/pdfgate

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Benchmarks
	/usr/bin/python3 -m pyflakes scripts Sources/GatewayLocalConverters/Python
	PYTHONPYCACHEPREFIX=.build/pycache /usr/bin/python3 -m py_compile Sources/GatewayLocalConverters/Python/*.py

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks

bench: deps
	@bash scripts/bench/bench.sh

fixtures:
	@bash scripts/make-fixtures.sh

clean:
	rm -rf .build .build-*
