#!/usr/bin/env python3
"""Show that a testbench can fail: replay a vector file with one expected
value changed and require the run to fail at exactly that event, on that
field.

    python cocotb/selftest.py --sim icarus --block smartt --vectors build/vectors/smartt.jsonl

The mutated copy (the first --events events, one expected field of event
--event, or of the next one whose result is not an error, with its lowest
bit flipped) goes to build/cocotb-selftest/, and the design is built there
too, apart from the real runs. Exit status 0 means the testbench reported
the mismatch it had to; 1 means it missed it (or failed for another
reason).
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

COCOTB_DIR = Path(__file__).resolve().parent
ROOT = COCOTB_DIR.parent


def mutate(src, dst, start, field, events):
    """Copy the first `events` lines of src to dst with one expected `field`
    changed, that of the first event from `start` on whose result is not an
    error; returns (its index, its original line, old value, new value)."""
    with open(src) as f:
        header = json.loads(f.readline())
        lines = [json.loads(line) for _, line in zip(range(events), f)]
    # An error result has every field but conn and kind 0 by contract; take
    # the first event from start on that is not one.
    index = next((i for i in range(start, len(lines)) if not lines[i]["expect"].get("error")), None)
    if index is None:
        raise SystemExit(f"selftest: no valid result from event {start} on in the {len(lines)} events used")
    original = json.loads(json.dumps(lines[index]))
    expect = lines[index]["expect"]
    if field not in expect:
        raise SystemExit(f"selftest: no result field {field!r} (fields: {', '.join(expect)})")
    old = expect[field]
    expect[field] = (not old) if isinstance(old, bool) else old ^ 1
    header["events"] = len(lines)
    dst.parent.mkdir(parents=True, exist_ok=True)
    with open(dst, "w") as f:
        for obj in [header] + lines:
            f.write(json.dumps(obj, separators=(",", ":")) + "\n")
    return index, original, old, expect[field]


def default_field(src):
    """The first result field that is neither an echo (conn, kind) nor error."""
    with open(src) as f:
        f.readline()
        expect = json.loads(f.readline())["expect"]
    return next(k for k in expect if k not in ("conn", "kind", "error"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", required=True, choices=("icarus", "verilator"))
    ap.add_argument("--block", required=True)
    ap.add_argument("--vectors", required=True, help="a vector file from `nicgen vectors BLOCK`")
    ap.add_argument("--event", type=int, default=700,
                    help="mutate the first event from this index on whose result is not an error (default 700)")
    ap.add_argument("--field", help="result field to mutate (default: cwnd for SMaRTT, ev for REPS)")
    ap.add_argument("--events", type=int, default=1000, help="events of the mutated copy (default 1000)")
    args = ap.parse_args()

    src = Path(args.vectors)
    field = args.field or default_field(src)
    build = ROOT / "build" / "cocotb-selftest"
    dst = build / f"{args.block}-{args.sim}-mutant.jsonl"
    index, event, old, new = mutate(src, dst, args.event, field, args.events)
    print(f"selftest {args.block} under {args.sim}: event {index} ({json.dumps(event)}): "
          f"expected {field} {old} -> {new}", flush=True)

    cmd = [sys.executable, str(COCOTB_DIR / "run.py"), "--sim", args.sim, "--block", args.block,
           "--vectors", str(dst), "--testcase", "vectors_random_timing", "--build-dir", str(build)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    out = run.stdout + run.stderr
    want = [f"first mismatch at event {index} ", f"differs:  {field}"]
    report = [line for line in out.splitlines() if "mismatch" in line or line.strip().startswith(
        ("event:", "expected:", "actual:", "differs:"))]
    if run.returncode == 1 and all(w in out for w in want):
        print("\n".join(report[:6]))
        print(f"PASS: the {args.block} testbench under {args.sim} caught the mutated {field} of event {index}")
        return 0
    print(out[-6000:])
    print(f"FAIL: the {args.block} testbench under {args.sim} did not report the mutated {field} of event "
          f"{index} (exit status {run.returncode}; wanted 1 and {want})")
    return 1


if __name__ == "__main__":
    sys.exit(main())
