# PDF Gateway — every entry point a person or CI uses. `make help` lists them.
SHELL := /bin/bash
SWIFT ?= swift
STORE ?= ./data

.PHONY: help deps build run demo test lint format bench fixtures clean gotenberg-scenarios

help:
	@echo "make run      install dependencies, build, and start the gateway on 127.0.0.1:8080 with ./data"
	@echo "make demo     file the fixture PDFs into ./data and list them (no server)"
	@echo "make test     install dependencies, build, and run the whole test suite"
	@echo "make bench    build in release mode and print the benchmarks"
	@echo "make lint     check formatting (swift format, hummingbird's .swift-format) and the Python (pyflakes)"
	@echo "make format   apply formatting"
	@echo "make fixtures regenerate Fixtures/ with real tools"
	@echo "make gotenberg-scenarios GOTENBERG=DIR   Gotenberg 8's own scenarios (a checkout of gotenberg/gotenberg) against pdfgate gotenberg"

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

# Tests run side by side, TEST_WIDTH at a time: that keeps two cores busy (vmstat shows no idle
# time through the pass), so more width, or a long test moved into a process of its own beside
# the pass, gains nothing, and more would starve real converters into false timeouts. Suites
# whose tests share a tool or a bound are `.serialized` in themselves.
# The suites whose subject is a deadline or a delay (TIMED_SUITES) run afterwards, away from the
# first pass's converters, whose load would bury the deadlines they measure. They wait far more
# than they compute, so they too run side by side, and the upstream gotenberg-client suite (about
# one core, in a network namespace of its own) runs beside them; its output is shown when both
# have ended, and either failing fails the step.
TEST_WIDTH ?= 4
SWIFT_TEST = SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(SWIFT) test --skip-build --disable-xctest
TIMED_SUITES := LocalConverterTests/Calibre/|HTTPClientSharedLoopTests|ConvertCLITests|RemoteGatewayConverterTests|RemoteGatewayPollingTests|GotenbergConverterTests|HTTPClientFailureTests|HTTPClientConcurrencyTests|MisbehavingConverterJobTests|PoolBehaviourTests|HostileFixtureTests
test: deps lint
	@bash scripts/check-compose.sh
	@bash scripts/python-venv.sh > /dev/null
	@bash scripts/python-venv.sh gotenberg-suite > /dev/null
	@/usr/bin/python3 scripts/fidelity/word_corpus.py .build/fidelity > /dev/null
	$(SWIFT) build --build-tests
	$(SWIFT_TEST) --skip '$(TIMED_SUITES)'
	@echo "the timed suites, with the upstream gotenberg-client suite beside them (.build/gotenberg-upstream.log)"
	@bash scripts/gotenberg-upstream/run.sh .build/debug/pdfgate >.build/gotenberg-upstream.log 2>&1 & upstream=$$!; \
	  $(SWIFT_TEST) --filter '$(TIMED_SUITES)'; timed=$$?; \
	  wait $$upstream; status=$$?; cat .build/gotenberg-upstream.log; \
	  [ $$timed -eq 0 ] && [ $$status -eq 0 ]

lint:
	$(SWIFT) format lint --strict --parallel --recursive Package.swift Sources Tests Benchmarks
	/usr/bin/python3 -m pyflakes scripts Sources/GatewayLocalConverters/Python
	PYTHONPYCACHEPREFIX=.build/pycache /usr/bin/python3 -m py_compile Sources/GatewayLocalConverters/Python/*.py

format:
	$(SWIFT) format --in-place --parallel --recursive Package.swift Sources Tests Benchmarks

bench: deps
	@bash scripts/bench/bench.sh

# Gotenberg 8's own integration scenarios (its test/integration/features) against `pdfgate
# gotenberg`, from a checkout of github.com/gotenberg/gotenberg that is not ours to ship: skipped
# without GOTENBERG. Fails below a 95 % pass share of the scenarios that can run here.
gotenberg-scenarios: build
	@bash scripts/gotenberg-scenarios/run.sh $(if $(GOTENBERG),"$(GOTENBERG)")

fixtures:
	@bash scripts/make-fixtures.sh

clean:
	rm -rf .build .build-*
