"""The tests every block built on blocks/connpipe runs (reps, reps_conf,
smartt, nscc): one valid/ready event stream in, one result per event out,
2 cycles of latency, s_event_ready = !m_result_valid || m_result_ready.

The per-block modules (<block>/test_<block>.py) register these as cocotb
tests; everything block-specific (ports, widths, fields, kind and case
names) comes from the vector file's header and lines.
"""

import random

import cocotb

from replay import Vectors, replay
from streams import CycleLoop, StreamError


def _setup(dut):
    vec = Vectors()
    vec.check_design(dut)
    rng = random.Random(cocotb.RANDOM_SEED)
    dut._log.info("%s: %d of the %d events of %s (vector seed %d), timing seed %d", vec.block, len(vec.events),
                  vec.total, vec.path, vec.header["seed"], cocotb.RANDOM_SEED)
    return vec, rng


def _report(dut, test, stats):
    dut._log.info("%s", stats)
    stats.record(test)


async def vectors_random_timing(dut):
    """Every event of the vector file, random idle cycles on s_event, random
    backpressure on m_result; every result equal to the golden model's."""
    vec, rng = _setup(dut)
    which = "all vectors" if len(vec.events) == vec.total else f"first {len(vec.events)} of {vec.total} vectors"
    stats, _, rule = await replay(dut, vec, rng, idle_prob=0.3, ready_prob=0.7,
                                  label=f"{which}, random valid gaps and backpressure")
    if rule.stalled == 0:
        raise StreamError("the backpressure never stalled the event stream")
    _report(dut, "vectors", stats)


async def handshake_and_latency(dut):
    """s_event_ready is low exactly when m_result_valid is high and
    m_result_ready low (checked every cycle), a result is valid exactly 2
    cycles after its event was accepted when nothing stalls, and one event
    per clock is sustained, back-to-back events to one connection included."""
    vec, rng = _setup(dut)
    loop = CycleLoop(dut.clk)

    # No stall at all: every event is accepted in the cycle after the
    # previous one and its result is taken exactly 2 cycles later.
    stats, board, rule = await replay(dut, vec, rng, count=2000, exact_latency=True, label="no stall", loop=loop)
    first = board.accepted[0]
    for i, c in enumerate(board.accepted):
        if c != first + i:
            raise StreamError(f"no-stall run: event {i} accepted in cycle {c}, want {first + i} (one per clock)")
    if rule.stalled:
        raise StreamError(f"no-stall run: s_event_ready was low in {rule.stalled} cycles")
    same = sum(1 for a, b in zip(vec.events, vec.events[1:len(board.accepted)]) if a["conn"] == b["conn"])
    dut._log.info("no stall: %d events in %d consecutive cycles, %d back to back on the same connection, latency 2",
                  len(board.accepted), len(board.accepted), same)
    _report(dut, "latency", stats)

    # Isolated events: still exactly 2 cycles.
    stats, _, _ = await replay(dut, vec, rng, count=300, idle_prob=0.75, exact_latency=True,
                               label="isolated events", loop=loop)
    _report(dut, "latency", stats)

    # Heavy backpressure: the ready rule must hold both ways.
    stats, _, rule = await replay(dut, vec, rng, count=2000, idle_prob=0.1, ready_prob=0.3,
                                  label="heavy backpressure", loop=loop)
    if rule.stalled == 0 or rule.stalled == rule.cycles:
        raise StreamError(f"heavy backpressure: s_event_ready low in {rule.stalled} of {rule.cycles} cycles; "
                          "both cases must occur")
    dut._log.info("heavy backpressure: s_event_ready low in %d of %d cycles, each time exactly when "
                  "m_result_valid && !m_result_ready", rule.stalled, rule.cycles)
    _report(dut, "backpressure", stats)
