"""Replay golden-model vectors against a block with the connpipe stream shape.

The vector file (``nicgen vectors BLOCK``) holds a header, with the block's
ports and widths, and one event per line with the result the golden model
computed for it. The testbench offers the events in order on s_event_*,
takes the results from m_result_* and compares each result with its
expectation. The golden model is transaction level, so the comparison is by
order, whatever the timing: random idle cycles on the event stream, random
backpressure on the result stream.

Each replay starts with a reset, which reloads the LFSR; the state table is
not reset, but every connection the vectors use is opened before use, so a
replay never depends on what an earlier one left there.
"""

import json
import os
import time

import cocotb

from streams import CycleLoop, StreamError, StreamSink, StreamSource, read_int

# Fields shown in hex in reports.
HEX_FIELDS = ("ev",)


def _stream_fields(ports, prefix, keys, what):
    """The data fields of the <prefix>_* stream: the ports other than valid
    and ready, in the order of the vector line's keys. Every port must have
    a field and every field a port: the vectors were made for this design."""
    ports_of = {p[len(prefix) + 1:] for p in ports if p.startswith(prefix + "_")} - {"valid", "ready"}
    fields = [k for k in keys if k in ports_of]
    extra = [k for k in keys if k not in ports_of]
    missing = sorted(ports_of - set(fields))
    if extra or missing:
        raise RuntimeError(f"{what}: fields without a {prefix}_* port {extra}, {prefix}_* ports without a field {missing}")
    return fields


def _ints(d, fields):
    """JSON flags are booleans; the ports carry them as 0 or 1."""
    return {f: int(d[f]) for f in fields}


class Vectors:
    """A vector file: header, events and expected results.

    Every field of an event line is named after its s_event_<field> port and
    every field of its "expect" object after its m_result_<field> port, so
    the fields of both streams come from the header's port list and the
    lines; nothing here is specific to a block.
    """

    def __init__(self, path=None):
        path = path or os.environ.get("NICGEN_VECTORS")
        if not path:
            raise RuntimeError("NICGEN_VECTORS is not set: point it at a file from `nicgen vectors BLOCK`")
        self.path = path
        with open(path) as f:
            self.header = json.loads(f.readline())
            lines = [json.loads(line) for line in f]
        self.block = self.header["block"]
        self.ports = self.header["ports"]
        self.kinds = self.header.get("kinds", [])
        self.cases = self.header.get("cases", [])  # names of m_result_case, where there is one
        if len(lines) != self.header["events"] or not lines:
            raise RuntimeError(f"{path}: header says {self.header['events']} events, file has {len(lines)}")
        # $NICGEN_EVENTS (run.py --events) replays a prefix: a slow simulator
        # runs the first events of the same file a fast one runs in full.
        self.total = len(lines)
        limit = int(os.environ.get("NICGEN_EVENTS") or 0)
        if limit > 0:
            lines = lines[:limit]
        first = lines[0]
        self.event_fields = _stream_fields(self.ports, "s_event", [k for k in first if k != "expect"], path)
        self.result_fields = _stream_fields(self.ports, "m_result", list(first["expect"]), path)
        self.events = [_ints(e, self.event_fields) for e in lines]
        self.expected = [_ints(e["expect"], self.result_fields) for e in lines]

    def check_design(self, dut):
        """The DUT must be the block the vectors were made for, port for port."""
        if dut._name != self.block:
            raise StreamError(f"vectors are for block {self.block}, the DUT is {dut._name}")
        for name, width in sorted(self.ports.items()):
            handle = getattr(dut, name, None)
            if handle is None:
                raise StreamError(f"{self.block}: the DUT has no port {name}")
            if len(handle) != width:
                raise StreamError(f"{self.block}: port {name} is {len(handle)} bits, the vectors expect {width}")

    def describe_event(self, i):
        return " ".join(_field(f, v, kind=self.kinds) for f, v in self.events[i].items())

    def describe_result(self, r):
        """Fields in order; an unknown value as its bit string."""
        return " ".join(_field(f, v, kind=self.kinds, case=self.cases) for f, v in r.items())


def _name(names, v, what):
    return names[v] if isinstance(v, int) and v < len(names) else f"{what}({v})"


def _field(f, v, **names):
    """f=v, in hex for HEX_FIELDS, with the value's name for the fields the
    header names (kind, case)."""
    if f in names and names[f]:
        return f"{f}={v} ({_name(names[f], v, f)})"
    return f"{f}=0x{v:x}" if f in HEX_FIELDS and isinstance(v, int) else f"{f}={v}"


class Scoreboard:
    """Matches results to accepted events, in order."""

    def __init__(self, vec, min_latency=2, exact_latency=False):
        self.vec = vec
        self.min_latency = min_latency
        self.exact_latency = exact_latency
        self.accepted = []  # acceptance cycle by event index
        self.results = 0
        self.first_accept = None
        self.last_result = None

    def on_accept(self, beat, cycle):
        if self.first_accept is None:
            self.first_accept = cycle
        self.accepted.append(cycle)

    def on_result(self, beat, cycle):
        i = self.results
        vec = self.vec
        if i >= len(self.accepted):
            raise StreamError(f"{vec.block}: cycle {cycle}: result {vec.describe_result(beat)} with no event outstanding "
                              f"({i} results for {len(self.accepted)} accepted events)")
        latency = cycle - self.accepted[i]
        want = vec.expected[i]
        if beat != want:
            diff = [f for f in vec.result_fields if beat[f] != want[f]]
            lines = [
                f"{vec.block}: first mismatch at event {i} (accepted in cycle {self.accepted[i]}, result taken in cycle {cycle})",
                f"  event:    {vec.describe_event(i)}",
                f"  expected: {vec.describe_result(want)}  (golden model)",
                f"  actual:   {vec.describe_result(beat)}  (RTL)",
                f"  differs:  {', '.join(diff)}",
                "  earlier events on this connection:",
            ]
            conn = vec.events[i]["conn"]
            prior = [j for j in range(i) if vec.events[j]["conn"] == conn][-6:]
            for j in prior:
                lines.append(f"    #{j}: {vec.describe_event(j)} -> {vec.describe_result(vec.expected[j])}")
            lines.append(f"  vectors: {vec.path}")
            raise AssertionError("\n".join(lines))
        if latency < self.min_latency or (self.exact_latency and latency != self.min_latency):
            want_lat = f"exactly {self.min_latency}" if self.exact_latency else f">= {self.min_latency}"
            raise AssertionError(f"{vec.block}: event {i} ({vec.describe_event(i)}) accepted in cycle "
                                 f"{self.accepted[i]}, result in cycle {cycle}: latency {latency}, want {want_lat}")
        self.results += 1
        self.last_result = cycle


class ReadyRule:
    """s_event_ready = !m_result_valid || m_result_ready, checked every cycle.

    Samples after the source and the sink, from what they sampled.
    """

    def __init__(self, block, source, sink):
        self.block = block
        self.source = source
        self.sink = sink
        self.stalled = 0  # cycles with s_event_ready low
        self.cycles = 0

    def drive(self):
        pass

    def sample(self, cycle):
        want = 0 if (self.sink.last_valid and not self.sink.ready_now) else 1
        got = self.source.last_ready
        if got != want:
            raise StreamError(
                f"{self.block}: cycle {cycle}: s_event_ready = {got} with m_result_valid = {self.sink.last_valid} "
                f"and m_result_ready = {self.sink.ready_now}; want !m_result_valid || m_result_ready = {want}")
        self.cycles += 1
        self.stalled += 1 - got


class Stats:
    """Throughput of one replay, appended to $NICGEN_STATS as a JSON line."""

    def __init__(self, label, events, cycles, seconds):
        self.label, self.events, self.cycles, self.seconds = label, events, cycles, seconds

    def __str__(self):
        s = max(self.seconds, 1e-9)
        return (f"{self.label}: {self.events} events in {self.cycles} cycles, {self.seconds:.2f} s: "
                f"{self.events / s:.0f} events/s, {self.cycles / s:.0f} cycles/s")

    def record(self, test):
        path = os.environ.get("NICGEN_STATS")
        if not path:
            return
        with open(path, "a") as f:
            f.write(json.dumps({"test": test, "label": self.label, "sim": cocotb.SIM_NAME, "events": self.events,
                                "cycles": self.cycles, "seconds": self.seconds}) + "\n")


async def replay(dut, vec, rng, *, count=None, idle_prob=0.0, ready_prob=1.0, exact_latency=False, label="replay",
                 loop=None):
    """Reset the DUT, play vec's first count events (all by default) and
    check every result. Returns (Stats, Scoreboard, ReadyRule)."""
    n = len(vec.events) if count is None else min(count, len(vec.events))
    loop = loop or CycleLoop(dut.clk)
    board = Scoreboard(vec, exact_latency=exact_latency)
    source = StreamSource(dut, "s_event", vec.event_fields, rng, idle_prob=idle_prob, on_accept=board.on_accept)
    sink = StreamSink(dut, "m_result", vec.result_fields, rng, ready_prob=ready_prob, on_beat=board.on_result)
    rule = ReadyRule(vec.block, source, sink)

    if loop.cycle == 0:
        dut.rst.value = 1
        source.idle()
        sink.idle()
        await loop.start()
    await loop.reset(dut.rst, idle=(source, sink))

    for e in vec.events[:n]:
        source.send(e)
    loop.components = [source, sink, rule]
    start_cycle = loop.cycle
    t0 = time.perf_counter()
    # Each event needs at most a few cycles beyond the stalls the random
    # timing makes; the bound only catches a hung DUT.
    stall = 1 / max(ready_prob, 0.01) + 1 / max(1 - idle_prob, 0.01)
    await loop.run_until(lambda: board.results == n, int(n * (stall + 2)) + 100, f"{vec.block} {label}")
    seconds = time.perf_counter() - t0
    cycles = loop.cycle - start_cycle

    # Nothing may come out after the last result.
    extra = []
    sink.on_beat = lambda beat, cycle: extra.append((beat, cycle))
    sink.ready_prob = 1.0
    for _ in range(8):
        await loop.step()
    if extra:
        raise StreamError(f"{vec.block} {label}: results after the last event: {extra}")
    if read_int(dut.m_result_valid, "m_result_valid", loop.cycle):
        raise StreamError(f"{vec.block} {label}: m_result_valid still high after the last result")
    loop.components = []
    return Stats(f"{vec.block} {label}", n, cycles, seconds), board, rule
