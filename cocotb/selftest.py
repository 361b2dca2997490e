#!/usr/bin/env python3
"""Show that a testbench can fail: replay mutated copies of a vector file
and require each run to fail exactly where the mutation says.

    python cocotb/selftest.py --sim icarus --block smartt --vectors build/vectors/smartt.jsonl

Two mutants, each the first --events events of the file:
  * data: one expected field of event --event, or of the next one whose
    result is not an error, with its lowest bit flipped; the
    vectors_random_timing test must report the first mismatch at that
    event, on that field;
  * timing: the header claims a shell one datapath stage deeper: its
    pipeline depth D (and params.Depth) raised to D+1, its latency L and
    credits C to L+1 and C+1 (one more stage, one more cycle and one more
    event in flight); the latency_isolated test must report that event 0's
    result came after L cycles, not the L+1 the deeper shell gives.
With --control, the wrapper's bench (cocotb/control) instead: a copy of
the block's generated folder whose C header says the ID register holds
another value; the control_interface test must report the ID it read
against the header's.
The copies and the runs' results go to build/cocotb-selftest/; the design
is the real run's build (build/cocotb/<block>-<sim>, built there if it is
not yet), as the point is that this very testbench can fail. Exit status 0 means the testbench reported both
failures it had to; 1 means it missed one (or failed for another reason).
"""

import argparse
import json
import re
import shutil
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


def mutate_depth(src, dst, events):
    """Copy the first `events` lines of src to dst with the header claiming
    one more datapath stage: its depth (and params.Depth, which must agree),
    latency and credits each one larger; returns (old header, new header)."""
    with open(src) as f:
        header = json.loads(f.readline())
        lines = [line for _, line in zip(range(events), f)]
    old = dict(header)
    for key in ("depth", "latency", "credits"):
        if not isinstance(header.get(key), int):
            raise SystemExit(f"selftest: {src} has no {key} in its header")
        header[key] += 1
    if isinstance(header.get("params"), dict) and "Depth" in header["params"]:
        header["params"] = dict(header["params"], Depth=header["depth"])
    header["events"] = len(lines)
    dst.parent.mkdir(parents=True, exist_ok=True)
    with open(dst, "w") as f:
        f.write(json.dumps(header, separators=(",", ":")) + "\n")
        f.writelines(lines)
    return old, header


def run_mutant(args, vectors, testcase, build, want):
    """Run one test on a mutated vector file; True when it failed with every
    string of want in its output."""
    cmd = [sys.executable, str(COCOTB_DIR / "run.py"), "--sim", args.sim, "--block", args.block,
           "--vectors", str(vectors), "--testcase", testcase,
           "--test-dir", str(build / f"{args.block}-{args.sim}-{testcase}")]
    if args.rtl:
        cmd += ["--rtl", args.rtl]
    run = subprocess.run(cmd, capture_output=True, text=True)
    out = run.stdout + run.stderr
    report = [line for line in out.splitlines() if "mismatch" in line or "latency" in line or line.strip().startswith(
        ("event:", "expected:", "actual:", "differs:"))]
    if run.returncode == 1 and all(w in out for w in want):
        print("\n".join(line.strip() for line in report[:6]))
        return True
    print(out[-6000:])
    print(f"exit status {run.returncode}; wanted 1 and {want}")
    return False


def control_selftest(args, build):
    """The wrapper's bench against a header whose ID_VALUE is off by one:
    control_interface must fail, naming the ID it read and the header's."""
    rtl = Path(args.rtl or ROOT / "verilog-out").resolve()
    dst = build / f"{args.block}-{args.sim}-control-rtl"
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(rtl / args.block, dst / args.block)
    header = dst / args.block / f"{args.block}_ctl.h"
    text = header.read_text()
    m = re.search(r"(#define\s+\w+_CTL_ID_VALUE\s+)0x([0-9A-Fa-f]+)u", text)
    if not m:
        print(f"FAIL: {header} has no ID_VALUE")
        return False
    old = int(m.group(2), 16)
    new = old ^ 1
    header.write_text(text[:m.start()] + f"{m.group(1)}0x{new:08X}u" + text[m.end():])
    print(f"selftest {args.block}_ctl under {args.sim}: header ID_VALUE {old:#010x} -> {new:#010x}", flush=True)
    cmd = [sys.executable, str(COCOTB_DIR / "run.py"), "--sim", args.sim, "--block", args.block, "--control",
           "--rtl", str(dst), "--testcase", "control_interface", "--build-dir", str(build / "control-build"),
           "--test-dir", str(build / f"{args.block}-{args.sim}-control")]
    run = subprocess.run(cmd, capture_output=True, text=True)
    out = run.stdout + run.stderr
    want = f"register ID reads {old:#010x}, the header says {new:#010x}"
    if run.returncode == 1 and want in out:
        print(f"PASS: the {args.block}_ctl bench under {args.sim} reported: {want}")
        return True
    print(out[-6000:])
    print(f"FAIL: the {args.block}_ctl bench under {args.sim}: exit status {run.returncode}; wanted 1 and {want!r}")
    return False


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
    ap.add_argument("--vectors", help="a vector file from `nicgen vectors BLOCK` (not with --control)")
    ap.add_argument("--control", action="store_true",
                    help="the control wrapper's bench against a mutated C header (--rtl generated with hardware.control = true)")
    ap.add_argument("--event", type=int, default=700,
                    help="mutate the first event from this index on whose result is not an error (default 700)")
    ap.add_argument("--field", help="result field to mutate (default: cwnd for SMaRTT, ev for REPS)")
    ap.add_argument("--events", type=int, default=1000, help="events of the mutated copies (default 1000)")
    ap.add_argument("--rtl", help="folder of the generated blocks (run.py --rtl; default run.py's)")
    args = ap.parse_args()

    build = ROOT / "build" / "cocotb-selftest"
    if args.control:
        return 0 if control_selftest(args, build) else 1
    if not args.vectors:
        ap.error("--vectors is required without --control")
    src = Path(args.vectors)
    field = args.field or default_field(src)
    ok = True

    dst = build / f"{args.block}-{args.sim}-mutant.jsonl"
    index, event, old, new = mutate(src, dst, args.event, field, args.events)
    print(f"selftest {args.block} under {args.sim}: event {index} ({json.dumps(event)}): "
          f"expected {field} {old} -> {new}", flush=True)
    if run_mutant(args, dst, "vectors_random_timing", build,
                  [f"first mismatch at event {index} ", f"differs:  {field}"]):
        print(f"PASS: the {args.block} testbench under {args.sim} caught the mutated {field} of event {index}")
    else:
        print(f"FAIL: the {args.block} testbench under {args.sim} did not report the mutated {field} of event {index}")
        ok = False

    dst = build / f"{args.block}-{args.sim}-mutant-depth.jsonl"
    old, new = mutate_depth(src, dst, args.events)
    print(f"selftest {args.block} under {args.sim}: header depth {old['depth']} -> {new['depth']}, latency "
          f"{old['latency']} -> {new['latency']}, credits {old['credits']} -> {new['credits']}", flush=True)
    if run_mutant(args, dst, "latency_isolated", build,
                  [f"{args.block}: event 0 (", f"latency {old['latency']}, want exactly {new['latency']}"]):
        print(f"PASS: the {args.block} testbench under {args.sim} caught the latency {old['latency']} of depth "
              f"{old['depth']} against a header that says depth {new['depth']}, latency {new['latency']}")
    else:
        print(f"FAIL: the {args.block} testbench under {args.sim} did not report a latency of {old['latency']} "
              f"against a header that says depth {new['depth']}, latency {new['latency']}")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
