#!/usr/bin/env python3
"""Build a generated block and run its cocotb testbench under a simulator.

    python cocotb/run.py --sim icarus --block reps --vectors build/vectors/reps.jsonl

The Verilog is <rtl>/<block>/ (the files of its .f list): by default the
committed verilog-out/, from `make cocotb` a fresh `nicgen generate -o
build/cocotb-rtl`. The testbench is the shared cocotb/common/test_block.py (or
cocotb/<block>/test_<block>.py when a block has tests of its own), and the
vectors come from `nicgen vectors <block>` (their header gives the block's
pipeline depth, hence its cycle contract); their path reaches the test
through $NICGEN_VECTORS. Everything is built under build/cocotb/<block>-<sim>/
and the tests run there too unless --test-dir says where (cocotb/selftest.py
runs its mutated vectors on the run's own build that way). A lock on the
build folder keeps two runs from building into it at once.
At the end the runner prints the build and test times and the testbench
throughput (events/s and simulated cycles/s) of every replay.
"""

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

COCOTB_DIR = Path(__file__).resolve().parent
ROOT = COCOTB_DIR.parent
SIMS = ("icarus", "verilator")


def verilog_sources(rtl_dir, block):
    """The files of <rtl_dir>/<block>/<block>.f, in its order.

    The list names each file by its path from the folder generate ran in
    (the repository root here: build/cocotb-rtl/<block>/<file>.v, or
    .../shared/<file>.v for a module several blocks share). A path that is
    not there is looked up next to the list, so that a moved output folder
    works too.
    """
    flist = Path(rtl_dir).resolve() / block / f"{block}.f"
    if not flist.is_file():
        raise SystemExit(f"run.py: {flist} not found (is {block} a generated block? run `nicgen generate`)")
    files = []
    for line in flist.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "//")):
            path = Path(line) if Path(line).is_absolute() else ROOT / line
            if not path.is_file():
                path = flist.parent / Path(line).name
            if not path.is_file():
                raise SystemExit(f"run.py: {flist} lists {line}, which is not in {flist.parent}")
            files.append(path)
    return files


def build_args(sim, fast):
    if sim != "verilator":
        return []
    # Power-on state as random as Icarus' X: no result may depend on a
    # register or table word that was never reset or written.
    args = ["--x-assign", "unique", "--x-initial", "unique"]
    if fast:
        # Verilator's own optimizations (the C++ level is set with the
        # build's MAKEFLAGS below).
        args += ["-O3"]
    return args


def build_key(sim, top, sources, bargs):
    """What a simulator build depends on: the simulator's version, the top,
    every source's path and bytes, the build options and the C++ flags."""
    h = hashlib.sha256()
    version = subprocess.run(["verilator", "--version"], capture_output=True, text=True).stdout if sim == "verilator" else sim
    for part in [version, top, " ".join(bargs), os.environ.get("MAKEFLAGS", "")]:
        h.update(part.encode() + b"\0")
    for src in sources:
        h.update(str(src).encode() + b"\0" + Path(src).read_bytes() + b"\0")
    return h.hexdigest()


def plusargs(sim, seed):
    if sim != "verilator":
        return []
    return ["+verilator+rand+reset+2", f"+verilator+seed+{max(seed, 1)}"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", required=True, choices=SIMS, help="simulator")
    ap.add_argument("--block", required=True, help="block name (a folder of verilog-out/ and of cocotb/)")
    ap.add_argument("--vectors", help="vector file (default build/vectors/<block>.jsonl)")
    ap.add_argument("--seed", type=int, default=1, help="timing seed: valid gaps and backpressure (default 1)")
    ap.add_argument("--events", type=int, default=None,
                    help="replay only the first N events of the vector file (0: all; default the count the file's "
                    "header gives for --sim, \"replay\", from the block's descriptor)")
    ap.add_argument("--testcase", help="run only these tests (comma-separated)")
    ap.add_argument("--build-dir", default=str(ROOT / "build" / "cocotb"), help="parent of the build folders")
    ap.add_argument("--rtl", default=str(ROOT / "verilog-out"), help="folder of the generated blocks (default verilog-out)")
    ap.add_argument("--no-opt", action="store_true", help="Verilator: build without -O3")
    ap.add_argument("--test-dir", help="folder the tests run in and write their results to (default the build folder)")
    ap.add_argument("--example", help="an integration example around the block: docs/integration/<example>.v is the top, "
                    "cocotb/<example>/test_<example>.py the tests (no vector file)")
    ap.add_argument("--control", action="store_true",
                    help="test the block's control wrapper (<block>_ctl, docs/control.md; --rtl generated with "
                    "hardware.control = true) with cocotb/control/test_control.py (no vector file)")
    args = ap.parse_args()

    block = args.block
    # a block's own testbench, or the shared one (common/test_block.py)
    module_dir, test_module = COCOTB_DIR / block, f"test_{block}"
    if args.example:
        module_dir, test_module = COCOTB_DIR / args.example, f"test_{args.example}"
    elif args.control:
        module_dir, test_module = COCOTB_DIR / "control", "test_control"
    elif not (module_dir / f"{test_module}.py").is_file():
        module_dir, test_module = COCOTB_DIR / "common", "test_block"
    vectors = Path(args.vectors or ROOT / "build" / "vectors" / f"{block}.jsonl").resolve()
    if not args.example and not args.control and not vectors.is_file():
        raise SystemExit(f"run.py: no vector file {vectors}: run `go run ./cmd/nicgen vectors {block} -o {vectors}`")
    events = args.events
    if events is None:
        events = 0
        if vectors.is_file():
            with open(vectors) as f:
                events = json.loads(f.readline()).get("replay", {}).get(args.sim, 0)
    sources = verilog_sources(args.rtl, block)
    if args.example:
        example = ROOT / "docs" / "integration" / f"{args.example}.v"
        if not example.is_file():
            raise SystemExit(f"run.py: no example {example}")
        sources.append(example)
    top = sources[-1].stem  # the .f list ends with the top module
    build_dir = Path(args.build_dir).resolve() / f"{args.example or block}{'-control' if args.control else ''}-{args.sim}"
    build_dir.mkdir(parents=True, exist_ok=True)
    test_dir = Path(args.test_dir).resolve() if args.test_dir else build_dir
    test_dir.mkdir(parents=True, exist_ok=True)
    # held until the process ends: a second run on this build (make -j with
    # cocotb and cocotb-selftest) waits instead of rebuilding under it
    lock = open(build_dir.parent / f".{build_dir.name}.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    stats_file = test_dir / "stats.jsonl"
    stats_file.unlink(missing_ok=True)

    # The runner hands sys.path to the simulator's Python as PYTHONPATH:
    # the test module and the shared helpers must be on it.
    for p in (module_dir, test_dir, COCOTB_DIR / "common"):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    if args.sim == "verilator":
        # The runner runs Verilator's generated makefile: use every core,
        # and do not inherit a parent make's jobserver, which a Python
        # subprocess cannot reach. The C++ is compiled at -O0
        # ($NICGEN_COCOTB_CXX_OPT overrides): smartt's model builds in 17 s
        # instead of 50 at Verilator's default -Os and its four tests take
        # 87 s instead of 70; the smaller blocks' tests run at the pace of
        # the testbench's Python either way (measured 2026-11-26).
        # The model is compiled as one file (VM_PARALLEL_BUILDS=0): Verilator
        # splits a large one into a dozen, and each pays g++'s parse of
        # verilated.h again (about 2 s); hpcc's build took 15.6 s of CPU
        # split and 6.4 s as one file, the runtime served by ccache in both
        # (measured 2026-11-29; docs/benchmarks.md).
        cxx = os.environ.get("NICGEN_COCOTB_CXX_OPT", "-O0")
        os.environ["MAKEFLAGS"] = f"-j{os.cpu_count() or 1} OPT_FAST={cxx} OPT_SLOW={cxx} OPT_GLOBAL={cxx} VM_PARALLEL_BUILDS=0"
        # Each build compiles Verilator's and cocotb's runtime again (about
        # 7 s of the C++ compiler): ccache, when installed (scripts/setup.sh
        # does), serves the later builds from build/ccache.
        if shutil.which("ccache"):
            os.environ["MAKEFLAGS"] += " OBJCACHE=ccache"
            os.environ.setdefault("CCACHE_DIR", str(ROOT / "build" / "ccache"))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "runners are experimental"
        from cocotb.runner import get_results, get_runner

    runner = get_runner(args.sim)
    t0 = time.perf_counter()
    bargs = build_args(args.sim, not args.no_opt)
    # cocotb's Verilator runner reruns Verilator on every build, which
    # rewrites its output and makes make recompile the whole model and
    # runtime; a run on the same sources and options (the self-test's
    # reruns on mutated vectors) reuses the model instead.
    stamp, key = build_dir / "nicgen-build.stamp", build_key(args.sim, top, sources, bargs)
    reused = args.sim == "verilator" and (build_dir / top).is_file() and stamp.is_file() and stamp.read_text() == key
    if reused:
        runner._build_command = lambda: []  # build() still records the sources and the top for test()
    else:
        stamp.unlink(missing_ok=True)
    runner.build(
        verilog_sources=sources,
        hdl_toplevel=top,
        build_dir=build_dir,
        build_args=bargs,
    )
    if not reused:
        stamp.write_text(key)
    t_build = time.perf_counter() - t0

    t0 = time.perf_counter()
    results = runner.test(
        test_module=test_module,
        hdl_toplevel=top,
        build_dir=build_dir,
        test_dir=test_dir,
        testcase=args.testcase,
        seed=args.seed,
        plusargs=plusargs(args.sim, args.seed),
        extra_env={"NICGEN_VECTORS": str(vectors), "NICGEN_STATS": str(stats_file),
                   "NICGEN_EVENTS": str(max(events, 0)), "NICGEN_ROOT": str(ROOT),
                   "NICGEN_RTL": str(Path(args.rtl).resolve()), "NICGEN_BLOCK": block, "NICGEN_SEED": str(args.seed)},
    )
    t_test = time.perf_counter() - t0
    num_tests, num_failed = get_results(Path(results))

    print(f"\n== cocotb {args.example or block} under {args.sim}: {num_tests - num_failed}/{num_tests} tests passed "
          f"(build {t_build:.1f} s{' (reused)' if reused else ''}, tests {t_test:.1f} s, timing seed {args.seed}, vectors {vectors})")
    events = cycles = 0
    seconds = 0.0
    if stats_file.is_file():
        for line in stats_file.read_text().splitlines():
            s = json.loads(line)
            events += s["events"]
            cycles += s["cycles"]
            seconds += s["seconds"]
            print(f"   {s['label']:<74} {s['events']:>7} events {s['cycles']:>7} cycles "
                  f"{s['events'] / s['seconds']:>8.0f} events/s {s['cycles'] / s['seconds']:>8.0f} cycles/s")
    if seconds > 0:
        print(f"   throughput ({args.sim}, {block}): {events / seconds:.0f} events/s, {cycles / seconds:.0f} "
              f"simulated cycles/s ({events} events, {cycles} cycles in {seconds:.1f} s of replay)")
    if num_tests == 0 or num_failed:
        print(f"FAIL: {num_failed} of {num_tests} tests failed; see the log above and {results}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
