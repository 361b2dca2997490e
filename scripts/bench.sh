#!/usr/bin/env bash
# Measures nicgen's speed figures and writes them to docs/benchmarks.md.
# Numbers are reported, never asserted: they vary with the machine.
#
# BENCH_SKIP_PNR=1 keeps the place-and-route section of the current
# docs/benchmarks.md instead of re-running nextpnr (1-5 minutes per block
# and seed); every other section is measured again.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/benchmarks.md
tmp=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$tmp" "$work"' EXIT

go build -o build/nicgen ./cmd/nicgen

# cocotb first: the equivalence table states the Go loop against it
make -j2 cocotb 2>&1 | tee /dev/stderr |
  sed -nE 's/.*throughput \(([a-z]+), ([a-z_]+)\): ([0-9]+) events\/s, ([0-9]+) simulated cycles\/s.*/\1 \2 \3 \4/p' | sort > "$work/cocotb"

# three runs of every block; the table gives the median of each figure
go test -run XXX -bench 'BenchmarkEquivalence' -benchtime 1x -count 3 ./verilator-harness/blockeq/ | tee /dev/stderr |
  awk '/^BenchmarkEquivalence\//{ split($1,a,"/"); sub(/-[0-9]+$/,"",a[2]); m=""; for (i=3;i<NF;i+=2) m=m" "$(i+1)"="$i; print a[2] m }' > "$work/equiv"

{
  echo "# Benchmarks"
  echo
  echo "Measured by \`make bench\` (scripts/bench.sh) on $(nproc) cores, $(go version | awk '{print $3}'), $(verilator --version | head -1)."
  echo "Reported, not asserted: rerun on your machine. The machine these figures come from is a shared 2-core VM whose speed varies by up to 1.5x from run to run."
  echo
  echo "## Equivalence throughput (Verilator + golden model, cycle by cycle)"
  echo
  echo "End to end is stimulus, golden model, Verilated model and comparison together, one campaign on the two cores (the stimulus and golden model run one batch ahead of the Verilated model); model alone is the Verilated model fed from a prepared buffer in the same run; \`--jobs 2\` is two shards of the campaign at once (\`nicgen equiv --jobs 2\`), counted together. Versus cocotb is end to end over cocotb's simulated cycles/s on Verilator for the same block (cocotb section below). The campaign column is 10^8 cycles at the better of end to end and \`--jobs 2\`. Medians of three runs."
  echo
  echo "| block | end to end (Mcycles/s) | model alone (Mcycles/s) | ratio | --jobs 2 (Mcycles/s) | versus cocotb on Verilator | 10^8-cycle campaign (min) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  python3 - "$work/equiv" "$work/cocotb" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    f = line.split()
    d = dict(kv.split("=") for kv in f[1:])
    runs.setdefault(f[0], []).append({k: float(v) for k, v in d.items()})
cocotb = {}
for line in open(sys.argv[2]):
    sim, block, ev, cyc = line.split()
    cocotb[(sim, block)] = float(cyc)
for block in sorted(runs):
    med = {k: statistics.median(r[k] for r in runs[block]) for k in runs[block][0]}
    e2e, alone, jobs2 = med["Mcycles/s_end_to_end"], med["Mcycles/s_model_alone"], med["Mcycles/s_jobs2"]
    c = cocotb.get(("verilator", block))
    vs = "%.0fx" % (e2e * 1e6 / c) if c else "not measured"
    best = max(e2e, jobs2)
    print("| %s | %.2f | %.2f | %.2f | %.2f | %s | %.1f |" % (block, e2e, alone, e2e / alone, jobs2, vs, 1e8 / (best * 1e6) / 60))
PY
} > "$tmp"

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
# what the harness runs beside the Verilated model: stimulus + golden cycle model + coverage
go test -run XXX -bench BenchmarkProducer -benchtime 4000000x ./verilator-harness/blockeq/ | tee /dev/stderr |
  awk '/^BenchmarkProducer\//{ sub(/-[0-9]+$/,"",$1); printf "| blockeq %s (stimulus, golden cycle model, coverage) | %s |\n", $1, $3 }' >> "$tmp"

{
  echo
  echo "## Closed loop: S2's hot spot"
  echo
  echo "golden/netsim/hotspot BenchmarkHotspot: the default network (64 hosts, 40:1, victims at 40%), 1 ms of simulated time, golden models in the loop."
  echo
  echo "| congestion control | wall time per simulated ms (ms) | simulator events/s |"
  echo "|---|---:|---:|"
} >> "$tmp"
go test -run XXX -bench BenchmarkHotspot -benchtime 3x ./golden/netsim/hotspot/ | tee /dev/stderr |
  awk '/^BenchmarkHotspot\//{ sub(/-[0-9]+$/,"",$1); sub(/^BenchmarkHotspot\//,"",$1); printf "| %s | %.0f | %.0f |\n", $1, $3/1e6, $5 }' >> "$tmp"

{
  echo
  echo "## Generation and synthesis"
  echo
} >> "$tmp"
start=$(date +%s%N)
build/nicgen generate -o build/bench-rtl --constraints build/bench-xdc >/dev/null
end=$(date +%s%N)
echo "\`nicgen generate\` for every block: $(( (end - start) / 1000000 )) ms." >> "$tmp"
# what every command and most tests pay first: the default configuration
# loaded, each block built to derive its pipeline depth
go test -run XXX -bench BenchmarkDefault -benchtime 10x ./blocks/config/ | tee /dev/stderr |
  awk '/^BenchmarkDefault/{ printf "Loading the default configuration (blocks/config BenchmarkDefault: every block built to derive its pipeline depth, as every command does first): %.0f ms.\n", $3/1e6 }' >> "$tmp"
echo >> "$tmp"
echo "| block | LUT | FF | carry | DSP | BRAM (RAMB36/18) | latches | logic depth (LUT levels) |" >> "$tmp"
echo "|---|---:|---:|---:|---:|---:|---:|---:|" >> "$tmp"
blocks=$(build/nicgen budget --json | python3 -c 'import json,sys; print(" ".join(x["block"] for x in json.load(sys.stdin)))')
for b in $blocks; do
  build/nicgen synth "$b" | tee /dev/stderr |
    sed -E 's/^([a-z_]+) \(xilinx\): LUT ([0-9]+), FF ([0-9]+), carry ([0-9]+), DSP ([0-9]+), BRAM ([0-9]+), latches ([0-9]+), logic depth ([0-9]+) LUT levels.*/| \1 | \2 | \3 | \4 | \5 | \6 | \7 | \8 |/' >> "$tmp"
done
echo >> "$tmp"
echo 'Yosys 0.23 `synth_xilinx -flatten` (7-series cells); logic depth is the most LUTs between two registers, block RAMs or DSPs in the mapped netlist (carry chains and MUXF7/8 passed through).' >> "$tmp"

if [ "${BENCH_SKIP_PNR:-}" = 1 ] && grep -q '^## Place and route on ECP5' "$out"; then
  # keep the measured section as it is
  echo >> "$tmp"
  awk '/^## Place and route on ECP5/{f=1} /^## cocotb/{f=0} f' "$out" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >> "$tmp"
else
{
    echo
    echo "## Place and route on ECP5 (Fmax) and event rates"
    echo
    echo '`nicgen synth BLOCK --target ecp5 --seeds 3`: Yosys 0.23 `synth_ecp5` and nextpnr-ecp5 on an LFE5U-85F, speed 8, each block inside a wrapper that registers every port; Fmax is the median of placer seeds 1-3 at a 200 MHz constraint. Events per clock are measured on the golden cycle model (proven equal to the RTL by `nicgen equiv`), events/s = Fmax x events per clock. Each run is also written to `cmd/nicgen/measured/ecp5.tsv` (`--record`) with the SHA-256 of the Verilog it measured; a datasheet quotes that line only while the generated Verilog has the same digest, and says "not measured for this Verilog" otherwise.'
    echo
    echo "| block | depth | Fmax (MHz) | vs 200 MHz | uniform, 4096 connections (Mevents/s) | recorded 8:1 incast (Mevents/s) | one connection (Mevents/s) | one connection, ns per event (800G/4 KiB needs 40.96) | critical path |"
    echo "|---|---:|---:|---|---:|---:|---:|---:|---|"
  } >> "$tmp"
  for b in $blocks; do
    depth=$(build/nicgen config show | awk -v b="$b" '$1=="block" && $2=="\""b"\"" {f=1} f && $1=="pipeline_depth" {print $3; exit}')
    build/nicgen synth "$b" --target ecp5 --seeds 3 --freq 200 --record cmd/nicgen/measured/ecp5.tsv | tee /dev/stderr | python3 -c '
import re, sys
b, depth = sys.argv[1], sys.argv[2]
t = sys.stdin.read()
f = float(re.search(r"median Fmax ([0-9.]+) MHz", t).group(1))
path = re.search(r"critical path \(seed \d+\): (.*)", t).group(1)
m = re.search(r"uniform over \d+ connections [0-9.]+ \(([0-9.]+) Mevents/s\), recorded \d+:1 incast [0-9.]+ \(([0-9.]+) Mevents/s\), one connection [0-9.]+ \(([0-9.]+) Mevents/s, one event every ([0-9.]+) ns\)", t)
state = "meets" if f >= 200 else ("above the 150 MHz floor, misses 200" if f >= 150 else "misses the 150 MHz floor")
print("| %s | %s | %.1f | %s | %s | %s | %s | %s | %s |" % (b, depth, f, state, m.group(1), m.group(2), m.group(3), m.group(4), path))
  ' "$b" "$depth" >> "$tmp"
  done
fi

{
  echo
  echo "## cocotb (same blocks, Python testbench)"
  echo
  echo "| simulator | block | events/s | simulated cycles/s |"
  echo "|---|---|---:|---:|"
} >> "$tmp"
awk '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$work/cocotb" >> "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out"
if [ "${BENCH_SKIP_PNR:-}" != 1 ]; then
  # the datasheets quote the place-and-route record (embedded in nicgen)
  go build -o build/nicgen ./cmd/nicgen
  build/nicgen generate
fi
