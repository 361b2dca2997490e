"""The tests every block built on blocks/connpipe runs (reps, reps_conf,
smartt, nscc): one valid/ready event stream in, one result per event out,
through the pipelined shell of docs/pipeline.md. With D the block's
pipeline_depth, L its latency and C its credits, all three from the vector
file's header (golden/pipe's figures for D: L = C = D+5 with the shell's
three read stages):

* s_event_ready is a register: 1 when the two-entry input buffer held at
  most one event after the last edge;
* an accepted event's result is valid L cycles later when nothing stalls;
* events of different connections issue one per clock, events of one
  connection one every D cycles;
* at most C events are issued and not yet taken from the result stream.

Every replay checks all of it every cycle against ShellModel (replay.py)
and every result against the golden model's, in order; the tests below add
exact, model-free checks of the figures and require the run to reach the
cases it is about. The per-block modules (<block>/test_<block>.py) register
these as cocotb tests; everything block-specific (ports, widths, fields,
kind and case names, depth, latency, credits) comes from the vector file.
"""

import random

import cocotb

from replay import Vectors, replay
from streams import StreamError


def _setup(dut):
    vec = Vectors()
    vec.check_design(dut)
    rng = random.Random(cocotb.RANDOM_SEED)
    dut._log.info("%s: %d of the %d events of %s (vector seed %d), timing seed %d, pipeline depth D = %d "
                  "(latency %d, %d credits)", vec.block, len(vec.events), vec.total, vec.path, vec.header["seed"],
                  cocotb.RANDOM_SEED, vec.depth, vec.latency, vec.credits)
    return vec, rng


def _report(dut, test, stats, model):
    dut._log.info("%s", stats)
    dut._log.info("%s: %s", stats.label, model)
    stats.record(test)


async def vectors_random_timing(dut):
    """Every event of the vector file, random idle cycles on s_event, random
    backpressure on m_result; every result equal to the golden model's and
    every cycle as the contract says."""
    vec, rng = _setup(dut)
    which = "all vectors" if len(vec.events) == vec.total else f"first {len(vec.events)} of {vec.total} vectors"
    stats, _, model = await replay(dut, vec, rng, idle_prob=0.3, ready_prob=0.7,
                                   label=f"{which}, random valid gaps and backpressure")
    if model.ready_low == 0:
        raise StreamError(f"{vec.block}: s_event_ready was never low: the input buffer never filled ({model})")
    _report(dut, "vectors", stats, model)


async def latency_isolated(dut):
    """Isolated events (acceptances at least D cycles apart, the
    same-connection spacing, more at random) with m_result_ready always
    high: every result is valid, and taken, exactly the header's latency L
    cycles after its event was accepted, and s_event_ready never drops."""
    vec, rng = _setup(dut)
    stats, board, model = await replay(dut, vec, rng, count=300, idle_prob=0.5, min_gap=vec.depth - 1,
                                       exact_latency=True, label="isolated events")
    if model.ready_low:
        raise StreamError(f"{vec.block} isolated events: s_event_ready was low in {model.ready_low} cycles")
    gaps = [b - a for a, b in zip(board.accepted, board.accepted[1:])]
    if min(gaps) != vec.depth:
        raise StreamError(f"{vec.block} isolated events: closest acceptances {min(gaps)} cycles apart; "
                          f"D = {vec.depth} must have been tried")
    dut._log.info("isolated events: %d events, each result exactly %d cycles after acceptance, acceptances %d "
                  "to %d cycles apart", len(board.accepted), vec.latency, min(gaps), max(gaps))
    _report(dut, "latency", stats, model)


def _issue_schedule(vec, accepted, depth):
    """When each result must be valid with s_event_valid held high and
    m_result_ready held high (no credit ever runs out then): the event issues
    in the cycle after its acceptance, one cycle after its predecessor at the
    earliest, and D cycles after the last event of its connection at the
    earliest; its result is valid L-1 cycles after it issues (L the
    header's latency, acceptance to result)."""
    want = []
    last_of = {}
    for i, a in enumerate(accepted):
        r = a + vec.latency
        if i:
            r = max(r, want[i - 1] + 1)
        conn = vec.events[i]["conn"]
        if conn in last_of:
            r = max(r, want[last_of[conn]] + depth)
        last_of[conn] = i
        want.append(r)
    return want


async def throughput_no_stall(dut):
    """s_event_valid and m_result_ready held high for 2000 events: each
    result comes exactly when the issue rules say (one per clock, D cycles
    after the previous event of the same connection, L after acceptance),
    so events of different connections go one per clock; with D = 1 every
    event is accepted on consecutive cycles, same connection included."""
    vec, rng = _setup(dut)
    d = vec.depth
    stats, board, model = await replay(dut, vec, rng, count=2000, label="no stall")
    n = len(board.accepted)
    want = _issue_schedule(vec, board.accepted, d)
    for i, (got, w) in enumerate(zip(board.taken, want)):
        if got != w:
            conn = vec.events[i]["conn"]
            prev = [j for j in range(max(0, i - d), i) if vec.events[j]["conn"] == conn]
            raise StreamError(f"{vec.block} no stall: event {i} ({vec.describe_event(i)}) accepted in cycle "
                              f"{board.accepted[i]}, result in cycle {got}, want {w} (previous result in "
                              f"{board.taken[i - 1] if i else None}; events of the same connection among the {d} "
                              f"before: {prev})")
    # What the schedule was about: consecutive results one clock apart for
    # events of different connections, D apart for the same connection.
    one_per_clock = run = longest = 0
    same_d = 0
    for i in range(1, n):
        step = board.taken[i] - board.taken[i - 1]
        same = vec.events[i]["conn"] == vec.events[i - 1]["conn"]
        if step == 1:
            run += 1
            one_per_clock += 1 - same
            longest = max(longest, run)
        else:
            run = 0
        if same and step == d:
            same_d += 1
    if d == 1:
        first = board.accepted[0]
        for i, c in enumerate(board.accepted):
            if c != first + i:
                raise StreamError(f"{vec.block} no stall: event {i} accepted in cycle {c}, want {first + i} "
                                  "(one per clock with D = 1)")
        if model.ready_low or longest != n - 1:
            raise StreamError(f"{vec.block} no stall: D = 1 but s_event_ready was low in {model.ready_low} cycles, "
                              f"longest one-per-clock run {longest + 1} of {n} results")
    if longest + 1 < 6 or one_per_clock < n // 4 or (d > 1 and (same_d == 0 or model.hazard_stalls == 0)):
        raise StreamError(f"{vec.block} no stall: the stimulus did not exercise the issue rules: {one_per_clock} "
                          f"results one clock after one of another connection, longest run {longest + 1}, "
                          f"{same_d} same-connection results D = {d} apart, {model.hazard_stalls} hazard stalls")
    dut._log.info("no stall: %d events in %d cycles; %d results one clock after one of another connection "
                  "(longest one-per-clock run %d), %d same-connection results exactly D = %d apart, "
                  "%d hazard stalls, s_event_ready low in %d cycles", n, board.taken[-1] - board.accepted[0] + 1,
                  one_per_clock, longest + 1, same_d, d, model.hazard_stalls, model.ready_low)
    _report(dut, "throughput", stats, model)


async def backpressure_credits(dut):
    """Heavy backpressure (m_result_ready 30% of the cycles, or 40%/D for a
    deep pipeline, so that it drains slower than one connection issues): results still
    correct, every cycle as the model predicts, and the run must reach a
    full result buffer (all C credits in use, the input buffer waiting
    for one), s_event_ready low, and s_event_ready high in a cycle where the
    result stream is stalled (it no longer follows m_result_ready)."""
    vec, rng = _setup(dut)
    # same-connection events issue once every D cycles at worst: the result
    # stream must drain slower than that for the result buffer to fill
    ready_prob = min(0.3, 0.4 / vec.depth)
    count = 2000 if vec.depth <= 4 else 600
    stats, _, model = await replay(dut, vec, rng, count=count, idle_prob=0.1, ready_prob=ready_prob,
                                   label=f"heavy backpressure (result ready {ready_prob:.0%})")
    missing = [what for what, n in (("a full result buffer", model.results_full),
                                    ("the head waiting for a credit", model.credit_stalls),
                                    ("s_event_ready low", model.ready_low),
                                    ("s_event_ready high while m_result_valid && !m_result_ready",
                                     model.decoupled)) if n == 0]
    if missing or model.ready_low == model.cycles:
        raise StreamError(f"{vec.block} heavy backpressure: never reached {missing} ({model})")
    _report(dut, "backpressure", stats, model)
