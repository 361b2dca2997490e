#!/usr/bin/env bash
# Where `make test`'s time goes: runs the suite's phases one after the
# other, as `make test` does, timing each, with the Go tests under
# `go test -json` so that every test's and package's time is kept too.
#
#   bash scripts/test-profile.sh [OUT]      (default build/test-profile)
#
# OUT/phases.tsv    phase, wall seconds, exit status
# OUT/go-test.json  go test -json of the Go tests (make test-go's packages)
# OUT/summary.txt   phases, the slowest packages and the slowest tests
# OUT/<phase>.log   each phase's output
#
# Run it in a clean clone with an empty model cache (NICGEN_CACHE) on a
# quiet machine to reproduce the figures of docs/benchmarks.md. It stops at
# the first phase that fails: a failing suite's times mean nothing.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/test-profile}
mkdir -p "$out"
: > "$out/phases.tsv"

phase() {
	local name=$1
	shift
	local start end rc
	start=$(date +%s.%N)
	"$@" > "$out/$name.log" 2>&1
	rc=$?
	end=$(date +%s.%N)
	local wall
	wall=$(awk "BEGIN { printf \"%.1f\", $end - $start }")
	printf '%s\t%s\t%d\n' "$name" "$wall" "$rc" >> "$out/phases.tsv"
	echo "test-profile: $name $wall s (exit $rc)"
	if [ "$rc" -ne 0 ]; then
		tail -30 "$out/$name.log"
		echo "test-profile: $name failed ($out/$name.log)" >&2
		exit "$rc"
	fi
}

phase setup make -s setup
phase vet make -s vet
phase test-go make -s --no-print-directory test-go GO_TEST_FLAGS=-json
mv "$out/test-go.log" "$out/go-test.json"
phase check-generated make -s check-generated
phase test-cocotb make -s test-cocotb
phase formal make -s formal

python3 - "$out" <<'EOF'
# A test whose subtests run in parallel reports almost no time of its own:
# a top-level test's time is the sum of its innermost subtests' (their
# wall time, while they shared the cores), or its own when it has none.
import json, sys
from collections import defaultdict
out = sys.argv[1]
lines = ["phase\twall s"]
for row in open(f"{out}/phases.tsv"):
    name, wall, rc = row.split("\t")
    lines.append(f"{name}\t{wall}")
pkg, elapsed = {}, {}
for raw in open(f"{out}/go-test.json"):
    try:
        ev = json.loads(raw)
    except ValueError:
        continue
    if ev.get("Action") not in ("pass", "fail") or "Elapsed" not in ev:
        continue
    if ev.get("Test"):
        elapsed[(ev["Package"], ev["Test"])] = ev["Elapsed"]
    else:
        pkg[ev["Package"]] = ev["Elapsed"]
parts = lambda t: t.split("/")
parents = {(p, "/".join(parts(t)[:k])) for p, t in elapsed for k in range(1, len(parts(t)))}
tests = defaultdict(float)
for (p, t), s in elapsed.items():
    if (p, t) not in parents:
        tests[(p, t.split("/")[0])] += s
lines.append("")
lines.append(f"Go packages: {len(pkg)}, summed {sum(pkg.values()):.0f} s; the slowest:")
for name, s in sorted(pkg.items(), key=lambda kv: -kv[1])[:12]:
    lines.append(f"{s:8.1f}  {name}")
lines.append("")
lines.append(f"Go tests (top level, their innermost subtests summed): {len(tests)}, summed {sum(tests.values()):.0f} s; the slowest:")
for (p, t), s in sorted(tests.items(), key=lambda kv: -kv[1])[:30]:
    lines.append(f"{s:8.1f}  {p} {t}")
open(f"{out}/summary.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
