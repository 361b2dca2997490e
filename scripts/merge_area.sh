#!/usr/bin/env bash
# The merge stage's cost in cells: every block that takes merge_slots or
# wait_slots, synthesized with Yosys synth_ecp5 (the flow of nicgen synth
# --target ecp5, before placement) on the default configuration with and
# without 8 slots. nscc's plain build gets the 16-bit sizes that merged
# ACKs need, so that the difference is the merge stage alone.
#
#   bash scripts/merge_area.sh > build/merge_area.txt
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/merge-area}
rm -rf "$out"
mkdir -p "$out"
go build -o "$out/nicgen" ./cmd/nicgen
head=$(sed -n '/^network {/,/^}/p; /^hardware {/,/^}/p' blocks/config/default.hcl)

cells() { # top dir -> LUT4 FF CCU2C DP16KD MULT18X18D
	(cd "$2" && yosys -q -p "read_verilog -DNICGEN_ECP5 $(ls *.v | tr '\n' ' '); synth_ecp5 -top $1; tee -q -o stat.txt stat" >/dev/null)
	awk '/LUT4/{l=$2} /TRELLIS_FF/{f=$2} /CCU2C/{c=$2} /DP16KD/{d=$2} /MULT18X18D/{m=$2} END{printf "%d %d %d %d %d", l, f, c, d, m}' "$2/stat.txt"
}

printf '%-13s %-12s %8s %8s %7s %7s %6s\n' block slots LUT4 FF CCU2C DP16KD MULT
for spec in "nscc merge_slots size_width = 16" "swift merge_slots" "hpcc merge_slots" \
	"ecn_ipd wait_slots" "irl_tokens wait_slots" "mcast_match wait_slots" "onerc_switch wait_slots" \
	"sperc_link wait_slots" "srp_tx wait_slots" "wm_ctrl wait_slots"; do
	read -r b attr extra <<<"$spec"
	for slots in 0 8; do
		body=""
		[ -n "$extra" ] && body="  $extra"
		[ "$slots" != 0 ] && body="$body
  $attr = $slots"
		cfg="$out/$b-$slots.hcl"
		printf '%s\nblock "%s" {\n%s\n}\n' "$head" "$b" "$body" >"$cfg"
		"$out/nicgen" generate -c "$cfg" --blocks "$b" -o "$out/$b-$slots" >/dev/null
		read -r l f c d m <<<"$(cells "$b" "$out/$b-$slots/$b")"
		printf '%-13s %-12s %8d %8d %7d %7d %6d\n' "$b" "$attr=$slots" "$l" "$f" "$c" "$d" "$m"
	done
done
