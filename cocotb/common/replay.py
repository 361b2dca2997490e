"""Replay golden-model vectors against a block with the connpipe stream shape.

The vector file (``nicgen vectors BLOCK``) holds a header, with the block's
ports and widths, its pipeline depth and the latency and credits of the
shell for that depth, and one event per line with the
result the golden model computed for it. The testbench offers the events in
order on s_event_*, takes the results from m_result_* and compares each
result with its expectation. The golden model is transaction level, so the
comparison is by order, whatever the timing: random idle cycles on the event
stream, random backpressure on the result stream. The timing itself is
checked every cycle against ShellModel, the cycle contract of the pipelined
shell (docs/pipeline.md) for the header's depth, latency and credits.

Each replay starts with a reset, which reloads the LFSR; the state table is
not reset, but every connection the vectors use is opened before use, so a
replay never depends on what an earlier one left there.
"""

import json
import os
import time
from collections import deque

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
        # The cycle contract (docs/pipeline.md) comes from the header, which
        # the exporter fills from golden/pipe: the block's pipeline_depth D
        # (its Params.Depth, which the header also carries under params when
        # the golden model has it) spaces the events of one connection D
        # cycles apart; "latency" is the number of cycles from acceptance to
        # result valid with no stall, "credits" the number of events issued
        # and not yet taken (the result buffer's entries).
        def count(key, what):
            v = self.header.get(key)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise RuntimeError(f"{path}: the header has no {what} (\"{key}\": {v!r}); "
                                   "regenerate the file with `nicgen vectors`")
            return v

        depth = count("depth", "pipeline depth")
        latency = count("latency", "pipeline latency")
        credits = count("credits", "credit count")
        params_depth = (self.header.get("params") or {}).get("Depth")
        if params_depth and params_depth != depth:
            raise RuntimeError(f"{path}: header depth {depth} but params.Depth {params_depth}")
        # What the contract's shape requires of the figures, whatever the
        # number of read stages: accepted in cycle t, an event issues in t+1
        # at the earliest and passes `stages` stages (the read stages, then
        # the D datapath stages), its result valid in t+stages+2, so
        # stages = latency - 2 > D. The credits are what one event per clock
        # with m_result_ready high needs: the events issued in the last
        # stages+1 cycles are still counted (the oldest is being taken) when
        # the next one issues, so credits = stages + 2 = latency.
        if latency - 2 <= depth:
            raise RuntimeError(f"{path}: header latency {latency} leaves {latency - 2} stages for a datapath of "
                               f"depth {depth} and its read stages")
        if credits != latency:
            raise RuntimeError(f"{path}: header credits {credits} but latency {latency}: one event per clock "
                               "needs exactly as many credits as cycles of latency")
        self.depth = depth
        self.latency = latency  # accepted in cycle t, result valid in cycle t+latency when nothing stalls
        self.stages = latency - 2  # read stages, then the datapath; issued in t+1, in the last one in t+latency-1
        self.credits = credits  # events issued and not yet taken; also the result buffer's entries
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

    def __init__(self, vec, exact_latency=False):
        self.vec = vec
        self.min_latency = vec.latency
        self.exact_latency = exact_latency
        self.accepted = []  # acceptance cycle by event index
        self.taken = []  # cycle its result was taken, by event index
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
        self.taken.append(cycle)
        self.last_result = cycle


class ShellModel:
    """The cycle contract of the pipelined shell (docs/pipeline.md) as the
    ports show it, checked every cycle.

    A small model of the shell's occupancy, driven by the handshakes the
    testbench observes, predicts both registered outputs of the next cycle:
      * the input buffer (two entries): an accepted event enters it at the
        edge; s_event_ready in cycle t+1 is 1 exactly when it holds at most
        one event after the edge ending cycle t;
      * its head issues in a cycle when no event of the same connection
        (s_event_conn in full) is in stages 1..D-1 (hazard) and fewer than
        the header's credits events are issued and not yet taken from the
        result stream;
      * an issued event passes stages 1..latency-2 (the read stages, then
        the D datapath stages), one per clock, never stalled, and enters
        the result buffer (credits entries) at the edge that ends its last
        stage; m_result_valid is 1 while that buffer holds a result.
    So s_event_ready and m_result_valid are functions of past cycles only;
    the model also reads both before the cycle's inputs are driven and
    requires the same values after (no path from s_event_valid or
    m_result_ready of the same cycle). The data of the results is the
    Scoreboard's business (in order, so the model need not carry it).

    Components: ``probe`` must be stepped before the source and the sink
    (it reads the outputs before they drive), the model itself after them.
    """

    def __init__(self, vec, dut, source, sink, loop):
        self.block = vec.block
        self.loop = loop
        self.depth = vec.depth
        self.credits = vec.credits
        self.vec = vec
        self.source = source
        self.sink = sink
        self.s_ready = dut.s_event_ready
        self.m_valid = dut.m_result_valid
        self.probe = _Probe(self)
        self.early = None  # (s_event_ready, m_result_valid) before this cycle's inputs
        # state after the last edge
        self.inbuf = []  # (event index, connection key), head first
        self.ready = 1  # s_event_ready predicted for the current cycle
        self.stages = deque([None] * vec.stages, maxlen=vec.stages)  # stage 1 first
        self.occ = 0  # issued and not yet taken
        self.outn = 0  # results in the result buffer
        self.accepted = 0
        self.issued = []  # issue cycle by event index
        self.history = deque(maxlen=10)
        # what the run reached
        self.cycles = 0
        self.ready_low = 0  # cycles with s_event_ready low
        self.decoupled = 0  # s_event_ready high while the result stream is stalled
        self.hazard_stalls = 0  # cycles the head waited for a same-connection event
        self.credit_stalls = 0  # cycles the head waited for a credit
        self.results_full = 0  # cycles with all `credits` result entries in use
        self.same_conn_issues = 0  # issues exactly D cycles after one of the same connection

    def drive(self):
        pass

    def _state(self):
        ev = self.vec.events

        def ref(i):
            return f"#{i} (conn {ev[i]['conn']})"

        stages = ", ".join(f"{k + 1}: {ref(st[0])}" for k, st in enumerate(self.stages) if st is not None)
        hist = "; ".join(f"cycle {c}: valid={v} ready={r}{' accepted #%d' % a if a is not None else ''} "
                         f"m_valid={mv} m_ready={mr}" for c, v, r, a, mv, mr in self.history)
        return (f"  model after the last edge: input buffer [{', '.join(ref(i) for i, _ in self.inbuf)}], "
                f"stages {{{stages or 'empty'}}}, {self.occ} of {self.credits} credits in use, "
                f"{self.outn} results buffered\n  last cycles: {hist or 'none'}")

    def _fail(self, cycle, msg):
        raise StreamError(f"{self.block}: cycle {cycle}: {msg} (D = {self.depth}, docs/pipeline.md)\n{self._state()}")

    def sample(self, cycle):
        source, sink = self.source, self.sink
        ready, valid = source.last_ready, sink.last_valid
        if self.early != (ready, valid):
            e_ready, e_valid = self.early
            self._fail(cycle, f"s_event_ready/m_result_valid = {e_ready}/{e_valid} before this cycle's inputs were "
                       f"driven, {ready}/{valid} after (s_event_valid = {source._valid_out}, m_result_ready = "
                       f"{sink.ready_now}): both must be registers")
        if ready != self.ready:
            self._fail(cycle, f"s_event_ready = {ready}, want {self.ready}: the input buffer held "
                       f"{len(self.inbuf)} event(s) after the last edge")
        if valid != (self.outn > 0):
            self._fail(cycle, f"m_result_valid = {valid}, want {int(self.outn > 0)}: the result buffer held "
                       f"{self.outn} result(s) after the last edge")
        beat = source.accepted
        pop = sink.took
        self.history.append((cycle, source._valid_out, ready, self.accepted if beat is not None else None,
                             valid, sink.ready_now))
        self.cycles += 1
        if not ready:
            self.ready_low += 1
        elif valid and not sink.ready_now:
            self.decoupled += 1
        if self.outn == self.credits:
            self.results_full += 1

        # The edge that ends this cycle.
        stages = self.stages
        issue = None
        if self.inbuf:
            head = self.inbuf[0]
            if self.occ >= self.credits:
                self.credit_stalls += 1
            else:
                key = head[1]
                hazard = False
                for k in range(self.depth - 1):  # stages 1..D-1
                    st = stages[k]
                    if st is not None and st[1] == key:
                        hazard = True
                        break
                if hazard:
                    self.hazard_stalls += 1
                else:
                    issue = self.inbuf.pop(0)
                    st = stages[self.depth - 1]  # stage D: issued D cycles ago
                    if st is not None and st[1] == key:
                        self.same_conn_issues += 1
        if pop:
            self.outn -= 1
            self.occ -= 1
        if stages[-1] is not None:
            self.outn += 1
        stages.appendleft(issue)  # drops the last stage
        if issue is not None:
            self.occ += 1
            self.issued.append(cycle)
        if beat is not None:
            self.inbuf.append((self.accepted, beat["conn"]))
            self.accepted += 1
        self.ready = 1 if len(self.inbuf) <= 1 else 0

    def __str__(self):
        return (f"{self.cycles} cycles: s_event_ready low in {self.ready_low}, high while the result stream was "
                f"stalled in {self.decoupled}; head waited {self.hazard_stalls} cycles for a same-connection "
                f"event, {self.credit_stalls} for a credit; result buffer full in {self.results_full}; "
                f"{self.same_conn_issues} issues exactly D = {self.depth} cycles after the same connection")


class _Probe:
    """Reads s_event_ready and m_result_valid at the falling edge, before any
    component drives this cycle's inputs."""

    def __init__(self, model):
        self.model = model

    def drive(self):
        m = self.model
        c = m.loop.cycle
        m.early = (read_int(m.s_ready, "s_event_ready", c), read_int(m.m_valid, "m_result_valid", c))

    def sample(self, cycle):
        pass


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


async def replay(dut, vec, rng, *, count=None, idle_prob=0.0, ready_prob=1.0, min_gap=0, exact_latency=False,
                 label="replay", loop=None):
    """Reset the DUT, play vec's first count events (all by default) and
    check every result and, every cycle, the shell's contract (ShellModel).
    The source waits min_gap cycles after each acceptance, then idles with
    probability idle_prob per cycle; m_result_ready is 1 with probability
    ready_prob per cycle. Returns (Stats, Scoreboard, ShellModel)."""
    n = len(vec.events) if count is None else min(count, len(vec.events))
    loop = loop or CycleLoop(dut.clk)
    board = Scoreboard(vec, exact_latency=exact_latency)
    source = StreamSource(dut, "s_event", vec.event_fields, rng, idle_prob=idle_prob, min_gap=min_gap,
                          on_accept=board.on_accept)
    sink = StreamSink(dut, "m_result", vec.result_fields, rng, ready_prob=ready_prob, on_beat=board.on_result)
    model = ShellModel(vec, dut, source, sink, loop)

    if loop.cycle == 0:
        dut.rst.value = 1
        source.idle()
        sink.idle()
        await loop.start()
    await loop.reset(dut.rst, idle=(source, sink))

    for e in vec.events[:n]:
        source.send(e)
    loop.components = [model.probe, source, sink, model]
    start_cycle = loop.cycle
    t0 = time.perf_counter()
    # Each event needs at most a few cycles beyond the stalls the random
    # timing and the hazards make; the bound only catches a hung DUT.
    stall = 1 / max(ready_prob, 0.01) + 1 / max(1 - idle_prob, 0.01) + min_gap + vec.depth
    await loop.run_until(lambda: board.results == n, int(n * (stall + 2)) + 100 + vec.latency,
                         f"{vec.block} {label}")
    seconds = time.perf_counter() - t0
    cycles = loop.cycle - start_cycle

    # Nothing may come out after the last result (the model checks that
    # m_result_valid stays low).
    extra = []
    sink.on_beat = lambda beat, cycle: extra.append((beat, cycle))
    sink.ready_prob = 1.0
    for _ in range(vec.latency + 4):
        await loop.step()
    if extra:
        raise StreamError(f"{vec.block} {label}: results after the last event: {extra}")
    if model.accepted != n or len(model.issued) != n or model.occ or model.outn:
        raise StreamError(f"{vec.block} {label}: the model accepted {model.accepted}, issued {len(model.issued)} "
                          f"of {n} events, {model.occ} in flight, {model.outn} results left")
    loop.components = []
    return Stats(f"{vec.block} {label}", n, cycles, seconds), board, model
