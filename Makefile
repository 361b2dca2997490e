# nicgen: the main job, the test suite, benchmarks.
# `make run` and `make test` install what they need first (scripts/setup.sh).

GO      ?= go
NICGEN  := $(GO) run ./cmd/nicgen
PYTHON  ?= python3

.PHONY: all setup run generate check-generated test test-go test-cocotb vet bench clean

all: run

setup:
	@bash scripts/setup.sh

# The main job: generate every block from the embedded default
# configuration, lint it (Verilator -Wall, Icarus) and synthesize it (Yosys,
# no latches), then print the state budgets.
run: setup
	$(NICGEN) generate --check
	$(NICGEN) budget

generate:
	$(NICGEN) generate

# The committed Verilog must be exactly what the code generates.
check-generated:
	$(NICGEN) diff

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

test-go:
	$(GO) test -count=1 -timeout 30m ./...

# Everything: formatting and vet, Go unit tests, equivalence against the
# golden models under Verilator (millions of cycles per block), lint and
# synthesis, drift of verilog-out/, and the cocotb testbenches under Icarus
# and Verilator.
test: setup vet test-go check-generated test-cocotb

bench: setup
	bash scripts/bench.sh

clean:
	rm -rf build

include cocotb/Makefile.inc

test-cocotb: cocotb
