# nicgen: the main job, the test suite, benchmarks.
# `make run` and `make test` install what they need first (scripts/setup.sh).

GO      ?= go
NICGEN  := $(GO) run ./cmd/nicgen
PYTHON  ?= python3

.PHONY: all setup run generate check-generated check test test-go test-cocotb formal vet bench clean

all: run

setup:
	@bash scripts/setup.sh

# The main job: generate every block from the embedded default
# configuration, lint it (Verilator -Wall, Icarus) and check it in Yosys
# (no latch, loop or second driver), then print the state budgets.
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

# The blocks of the default configuration: a folder each in verilog-out/.
BLOCKS := $(filter-out shared,$(notdir $(patsubst %/,%,$(wildcard verilog-out/*/))))

# The edit loop's tier: formatting and vet, the unit tests with -short (the
# DSL, the golden models, the blocks' Go and their proofs' builds; no
# Verilated model), the drift of verilog-out/, and a short equivalence of
# every block against its golden model (nicgen equiv, CHECK_CYCLES cycles
# under Verilator, which must also reach the block's coverage; the models
# at -O1 in the shared model cache, so a warm cache builds none). make
# test is the whole suite.
CHECK_CYCLES ?= 1000000
check: vet
	$(GO) test -count=1 -short ./hdlgen/... ./golden/... ./blocks/...
	$(NICGEN) diff
	$(GO) build -o build/bin/nicgen ./cmd/nicgen
	@mkdir -p build/check
	@for b in $(BLOCKS); do \
	  NICGEN_VERILATOR_OPT=-O1 build/bin/nicgen equiv $$b --cycles $(CHECK_CYCLES) > build/check/$$b.txt 2>&1 || \
	    { cat build/check/$$b.txt; echo "check: nicgen equiv $$b failed (build/check/$$b.txt)"; exit 1; }; \
	done; echo "check: $(words $(BLOCKS)) blocks equal to their golden models over $(CHECK_CYCLES) cycles each"

# The tests' Verilated models are compiled at -O1 (about 210 of them, each
# run for seconds: compiling them at -O3 would take longer than running
# them); nicgen equiv and the benchmarks keep -O3.
# The longest packages are named first, so that go test (two at a time on
# two cores) starts them first rather than leaving one of them alone at
# the end; ./... adds the rest (each package runs once). -vet=off: go
# test's own subset of vet would repeat part of make vet, which runs
# first (`make test-go` alone leaves vet to `make vet`). GO_TEST_FLAGS
# adds flags (scripts/test-profile.sh passes -json).
GO_TEST_FLAGS ?=
TEST_GO_FIRST := ./cmd/nicgen ./blocks/snyder ./verilator-harness/blockeq ./blocks/threecpo ./blocks/srp ./blocks/smartt ./blocks/onerc
test-go:
	NICGEN_VERILATOR_OPT=-O1 NICGEN_SLURM=1 $(GO) test -vet=off -count=1 -timeout 30m $(GO_TEST_FLAGS) $(TEST_GO_FIRST) ./...

# Formal proofs of the blocks' invariants with Yosys (temporal induction
# from a zeroed state), lint of the blocks with their invariants, and one
# deliberately broken variant per invariant, which must fail: docs/formal.md.
# Verdicts in build/formal/report.txt, counterexample traces beside them.
formal: setup
	NICGEN_FORMAL=1 $(GO) test -count=1 -timeout 25m ./cmd/nicgen/internal/formal/
	@cat build/formal/report.txt

# Everything: formatting and vet, Go unit tests, equivalence against the
# golden models under Verilator (millions of cycles per block), lint and
# synthesis, drift of verilog-out/, the cocotb testbenches under Icarus
# and Verilator with their self-test (each must catch a mutated
# expectation and a mutated depth), and the formal proofs.
test: setup vet test-go check-generated test-cocotb formal

bench: setup
	bash scripts/bench.sh

clean:
	rm -rf build

include cocotb/Makefile.inc

# the testbenches, then the proof that they can fail (cocotb/selftest.py),
# two at a time: each run builds and simulates in a folder of its own
# (build/cocotb/<block>-<sim>, build/cocotb-selftest), and the machine
# has two cores. make test runs every block under Verilator and the
# blocks of COCOTB_TEST_ICARUS under Icarus too (Icarus runs the others
# for minutes each, which CI's time does not allow); `make cocotb
# cocotb-selftest` runs every block under both. The integration examples
# (docs/integration.md) run under Verilator, nscc's control wrapper
# (docs/control.md) under Icarus (25 s), with its selftest (a header with
# a wrong ID value must fail); `make cocotb-control` runs the
# wrappers of docs/examples/control.hcl (cocotb/Makefile.inc says why
# under Icarus only).
COCOTB_JOBS        ?= 2
COCOTB_TEST_ICARUS ?= reps_conf srp_ttw
COCOTB_TEST_RUNS   := $(COCOTB_BLOCKS:%=cocotb-verilator-%) $(patsubst %,cocotb-icarus-%,$(filter $(COCOTB_TEST_ICARUS),$(COCOTB_BLOCKS)))
test-cocotb:
	$(MAKE) -j$(COCOTB_JOBS) $(COCOTB_TEST_RUNS) $(COCOTB_EXAMPLES:%=cocotb-verilator-example-%) cocotb-icarus-control-nscc
	$(MAKE) -j$(COCOTB_JOBS) $(COCOTB_TEST_RUNS:cocotb-%=cocotb-selftest-%) cocotb-selftest-icarus-control-nscc
