#!/usr/bin/env bash
# Measures nicgen's speed figures and writes them to docs/benchmarks.md.
# Numbers are reported, never asserted: they vary with the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/benchmarks.md
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

go build -o build/nicgen ./cmd/nicgen

{
  echo "# Benchmarks"
  echo
  echo "Measured by \`make bench\` (scripts/bench.sh) on $(nproc) cores, $(go version | awk '{print $3}'), $(verilator --version | head -1)."
  echo "Reported, not asserted: rerun on your machine."
  echo
  echo "## Equivalence throughput (Verilator + golden model, cycle by cycle)"
  echo
  echo "End to end is stimulus, golden model, Verilated model and comparison together; model alone is the Verilated model fed from a prepared buffer in the same run."
  echo
  echo "| block | end to end (Mcycles/s) | model alone (Mcycles/s) | ratio |"
  echo "|---|---:|---:|---:|"
} > "$tmp"
go test -run XXX -bench 'BenchmarkEquivalence' -benchtime 3x ./verilator-harness/blockeq/ | tee /dev/stderr |
  awk '/^BenchmarkEquivalence\//{ split($1,a,"/"); sub(/-[0-9]+$/,"",a[2]); printf "| %s | %.2f | %.2f | %.2f |\n", a[2], $5, $7, $9 }' >> "$tmp"

{
  echo
  echo "## Golden models alone"
  echo
  echo "| benchmark | ns/cycle |"
  echo "|---|---:|"
} >> "$tmp"
for pkg in reps smartt; do
  go test -run XXX -bench . ./golden/$pkg/ | tee /dev/stderr | awk -v pkg="$pkg" '/^Benchmark/{ sub(/-[0-9]+$/,"",$1); printf "| golden/%s %s | %s |\n", pkg, $1, $3 }' >> "$tmp"
done

{
  echo
  echo "## Generation and synthesis"
  echo
} >> "$tmp"
start=$(date +%s%N)
build/nicgen generate -o build/bench-rtl --constraints build/bench-xdc >/dev/null
end=$(date +%s%N)
echo "\`nicgen generate\` for every block: $(( (end - start) / 1000000 )) ms." >> "$tmp"
echo >> "$tmp"
echo "| block | LUT | FF | carry | DSP | BRAM (RAMB36/18) | latches | longest path (cells) |" >> "$tmp"
echo "|---|---:|---:|---:|---:|---:|---:|---:|" >> "$tmp"
for b in $(build/nicgen budget --json | python3 -c 'import json,sys; print(" ".join(x["block"] for x in json.load(sys.stdin)))'); do
  build/nicgen synth "$b" | tee /dev/stderr |
    sed -E 's/^([a-z_]+) \(xilinx\): LUT ([0-9]+), FF ([0-9]+), carry ([0-9]+), DSP ([0-9]+), BRAM ([0-9]+), latches ([0-9]+), longest path ([0-9]+) cells/| \1 | \2 | \3 | \4 | \5 | \6 | \7 | \8 |/' >> "$tmp"
done
echo >> "$tmp"
echo "Yosys 0.23 \`synth_xilinx -flatten\` (7-series cells); the longest path is Yosys \`ltp -noff\` over the mapped netlist." >> "$tmp"

{
  echo
  echo "## cocotb (same blocks, Python testbench)"
  echo
  echo "| simulator | block | events/s | simulated cycles/s |"
  echo "|---|---|---:|---:|"
} >> "$tmp"
make -j2 cocotb 2>&1 | tee /dev/stderr |
  sed -nE 's/.*throughput \(([a-z]+), ([a-z_]+)\): ([0-9]+) events\/s, ([0-9]+) simulated cycles\/s.*/| \1 | \2 | \3 | \4 |/p' | sort >> "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out"
