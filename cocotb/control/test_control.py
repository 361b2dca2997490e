"""The AXI-Lite control and status wrapper of a block (<block>_ctl,
docs/control.md), driven as a NIC team drives it: cocotbext-axi's
AxiLiteMaster on s_axil_* (random pauses on all five channels), the
register offsets and field values from the generated C header
<block>_ctl.h, events and results on the block's streams meanwhile.

bring_up, the test a NIC team writes first:
  * after reset the wrapper clears the table: s_event_ready stays low for
    at least NUM_CONN cycles while STATUS.CLEAR_BUSY reads 1;
  * every run-time setting PARAM_<NAME> is set from the header (its
    default, then its range's ends) and reads back;
  * random events of every kind, some out of range or of an unknown kind,
    run while software reads the counters; afterwards every COUNTER reads
    exactly what its description in the header counts in the result
    stream.

control_interface, the rest of the register map:
  * ID, WORD_BITS, NUM_CONN and COUNTERS read what the header says, and
    SCRATCH reads back what was written, while events flow;
  * a word written to a connection reads back, and a clear on command
    reads back as zeros;
  * a word operation out of range sets WORD_ERROR, a command while busy
    sets STATUS.REJECTED, CLEAR_REJECTED clears it, and a setting above
    its range is refused.

The event and result streams are driven by the project's own coroutines,
not by cocotbext-axi's AXI-Stream classes: their beats are the block's
named fields (s_event_conn, s_event_kind, ...) with valid and ready, not
an AXI-Stream tdata/tkeep/tlast bus, and packing them into one would
change the ports under test.
"""

import logging
import os
import random
import re
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge
from cocotbext.axi import AxiLiteBus, AxiLiteMaster

PERIOD_NS = 10
# Each test takes 0.07-0.17 ms of simulated time on the blocks of
# docs/examples/control.hcl; a handshake that never completes fails at
# this bound instead of running until CI's limit.
TIMEOUT_MS = 1


def header_defines(path):
    """The object-like #defines of the C header, as integers."""
    out = {}
    for line in Path(path).read_text().splitlines():
        m = re.match(r"#define\s+(\w+)\s+(\(1u << (\d+)\)|0x[0-9A-Fa-f]+u|\d+u)(?=\s|$)", line)
        if not m:
            continue
        if m.group(3) is not None:
            out[m.group(1)] = 1 << int(m.group(3))
        else:
            out[m.group(1)] = int(m.group(2).rstrip("u"), 0)
    return out


def counter_rules(text, prefix):
    """Every COUNTER register of the header with the rule its description
    states, as (name, offset, predicate over a result dict)."""
    rules = []
    pat = re.compile(r"#define\s+" + prefix + r"REG_COUNTER_(\w+)\s+(0x[0-9A-Fa-f]+)u\s+/\*\s*(.*?)\s*\*/")
    for name, off, doc in pat.findall(text):
        if m := re.match(r"results of .+ events \(kind (\d+)\) without error", doc):
            k = int(m.group(1))
            pred = (lambda k: lambda r: r["kind"] == k and not r["error"])(k)
        elif doc.startswith("results with error set"):
            pred = lambda r: r["error"] == 1
        elif m := re.match(r"results with (\w+) = (\d+) \(", doc):
            f, v = m.group(1), int(m.group(2))
            pred = (lambda f, v: lambda r: r[f] == v)(f, v)
        elif m := re.match(r"results with (\w+) set", doc):
            f = m.group(1)
            pred = (lambda f: lambda r: r[f] == 1)(f)
        else:
            raise AssertionError(f"COUNTER_{name}: no rule for its description {doc!r}")
        rules.append((name, int(off, 16), pred))
    assert rules, "the header has no COUNTER register"
    return rules


def pauses(rng, p):
    """A cocotbext-axi pause generator: pause with probability p."""
    while True:
        yield rng.random() < p


class Streams:
    """The event source and the result sink, stepped at every falling edge
    (drive), with the handshake sampled in the ReadOnly phase after it: what
    is sampled is what the DUT sees at the next rising edge."""

    def __init__(self, dut, rng, fields):
        self.dut, self.rng, self.fields = dut, rng, fields  # fields: the s_event_* data ports
        self.queue = []  # events still to offer
        self.taken = 0
        self.results = []  # every result taken: {field: value}
        self.ready_low = 0  # cycles with an event offered and s_event_ready low
        self.cycle = 0
        self.outs = sorted(n for n in dir(dut) if n.startswith("m_result_") and n not in ("m_result_valid", "m_result_ready"))

    def idle_inputs(self):
        """Every input at 0 through the reset, the AXI-Lite port's too: the
        master is made after the reset, and inputs Icarus leaves at x during
        the reset would leave the wrapper's handshake state at x."""
        d = self.dut
        d.s_event_valid.value = 0
        for f in self.fields:
            getattr(d, f).value = 0
        d.m_result_ready.value = 0
        for n in ("awaddr", "awvalid", "wdata", "wstrb", "wvalid", "bready", "araddr", "arvalid", "rready"):
            getattr(d, "s_axil_" + n).value = 0

    async def run(self):
        d = self.dut
        while True:
            await FallingEdge(d.clk)
            self.cycle += 1
            ev = self.queue[0] if self.queue else None
            d.s_event_valid.value = 1 if ev else 0
            for f in self.fields:
                getattr(d, f).value = ev.get(f, 0) if ev else 0
            d.m_result_ready.value = 1 if self.rng.random() < 0.8 else 0
            await ReadOnly()
            if ev:
                if d.s_event_ready.value.integer:
                    self.queue.pop(0)
                    self.taken += 1
                else:
                    self.ready_low += 1
            if d.m_result_valid.value.integer and d.m_result_ready.value.integer:
                self.results.append({n[len("m_result_"):]: getattr(d, n).value.integer for n in self.outs})

    async def drain(self, n_events):
        """Until every event offered was taken and its result seen."""
        for _ in range(200 * n_events + 10000):
            await RisingEdge(self.dut.clk)
            if not self.queue and len(self.results) >= n_events:
                return
        raise AssertionError(f"{len(self.results)} results for {n_events} events")


class Bench:
    def __init__(self, dut):
        block = os.environ["NICGEN_BLOCK"]
        path = Path(os.environ["NICGEN_RTL"]) / block / f"{block}_ctl.h"
        self.h = header_defines(path)
        self.p = block.upper() + "_CTL_"
        text = path.read_text()
        m = re.search(r"#define\s+" + self.p + r"REG_WORD_DATA\(i\)\s+\((0x[0-9A-Fa-f]+)u \+ 4u \* \(i\)\)", text)
        assert m, "the header has no REG_WORD_DATA(i)"
        self.word_base = int(m.group(1), 16)
        self.counters = counter_rules(text, self.p)
        self.kinds = sorted({int(k) for k in re.findall(r"events \(kind (\d+)\) without error", text)})
        self.dut = dut
        self.rng = random.Random(int(os.environ.get("NICGEN_SEED", "1")))
        top = Path(os.environ["NICGEN_RTL"]) / block / f"{block}_ctl.v"
        ports = re.findall(r"^\s*input\s+wire\s+(?:\[[^\]]*\]\s*)?(s_event_\w+)", top.read_text(), re.M)
        self.fields = sorted(p for p in ports if p != "s_event_valid")
        self.streams = Streams(dut, self.rng, self.fields)
    def d(self, name):
        return self.h[self.p + name]

    def addr(self, reg):
        return self.d("REG_" + reg) if isinstance(reg, str) else reg

    async def start(self):
        """Clock, reset (4 cycles), the streams' coroutine."""
        dut = self.dut
        self.streams.idle_inputs()
        dut.rst.value = 1
        cocotb.start_soon(Clock(dut.clk, PERIOD_NS, units="ns").start())
        for _ in range(4):
            await RisingEdge(dut.clk)
        await FallingEdge(dut.clk)
        dut.rst.value = 0
        cocotb.start_soon(self.streams.run())
        await RisingEdge(dut.clk)
        # the master after the reset: it flushes what it holds on a reset
        # edge, and Verilator starts rst at 0, so that the reset's rise
        # would be one
        self.axi = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst, reset_active_level=True)
        for side in (self.axi.write_if, self.axi.read_if):
            side.log.setLevel(logging.WARNING)  # not a line per transaction
        prng = random.Random(self.rng.getrandbits(32))
        for ch in (self.axi.write_if.aw_channel, self.axi.write_if.w_channel, self.axi.write_if.b_channel,
                   self.axi.read_if.ar_channel, self.axi.read_if.r_channel):
            ch.set_pause_generator(pauses(prng, 0.3))

    async def write(self, reg, value):
        await self.axi.write_dword(self.addr(reg), value)

    async def read(self, reg):
        return await self.axi.read_dword(self.addr(reg))

    async def idle(self, limit=100000):
        for _ in range(limit):
            st = await self.read("STATUS")
            if not st & (self.d("STATUS_CLEAR_BUSY") | self.d("STATUS_WORD_BUSY")):
                return st
        raise AssertionError("STATUS stays busy")

    async def word(self, conn, op, data=None):
        await self.write("WORD_CONN", conn)
        if data is not None:
            for i, v in enumerate(data):
                await self.write(self.word_base + 4 * i, v)
        await self.write("CONTROL", self.d("CONTROL_" + op))
        st = await self.idle()
        regs = (self.d("WORD_BITS") + 31) // 32
        return st, [await self.read(self.word_base + 4 * i) for i in range(regs)]

    async def after_reset_clear(self):
        """The clear after reset, with an event offered all along."""
        num_conn = self.d("NUM_CONN")
        s = self.streams
        s.queue.append({"s_event_conn": 1, "s_event_kind": self.kinds[0]})
        busy_seen = False
        while s.queue:
            st = await self.read("STATUS")
            busy_seen |= bool(st & self.d("STATUS_CLEAR_BUSY"))
            assert s.cycle < 4 * num_conn + 1000, f"the clear never ends (STATUS {st:#x}, CLEAR_AT {await self.read('CLEAR_AT')}, {s.cycle} cycles, s_event_ready low {s.ready_low})"
        assert busy_seen, "STATUS.CLEAR_BUSY never read 1 during the clear"
        assert s.ready_low >= num_conn, f"s_event_ready low {s.ready_low} cycles for {num_conn} connections"
        assert not (await self.read("STATUS")) & self.d("STATUS_CLEAR_BUSY")
        await s.drain(1)
        self.dut._log.info("clear after reset: s_event_ready low for %d cycles, %d connections", s.ready_low, num_conn)

    def params(self):
        return sorted(k[len(self.p + "REG_PARAM_"):] for k in self.h if k.startswith(self.p + "REG_PARAM_"))

    def random_events(self, n, conns):
        """n events on the connections conns (each opened first), a few out
        of range or of an unknown kind; every other field random."""
        num_conn, kind_w = self.d("NUM_CONN"), len(self.dut.s_event_kind)
        evs = [{"s_event_conn": c, "s_event_kind": self.kinds[0]} for c in conns]
        widths = {f: len(getattr(self.dut, f)) for f in self.fields}
        for _ in range(n - len(evs)):
            e = {f: self.rng.getrandbits(w) for f, w in widths.items()}
            e["s_event_conn"] = self.rng.choice(conns)
            e["s_event_kind"] = self.rng.choice(self.kinds)
            r = self.rng.random()
            if r < 0.03:
                e["s_event_conn"] = num_conn + self.rng.randrange(4)
            elif r < 0.05 and max(self.kinds) + 1 < 1 << kind_w:
                e["s_event_kind"] = self.rng.randrange(max(self.kinds) + 1, 1 << kind_w)
            evs.append(e)
        return evs


@cocotb.test(timeout_time=TIMEOUT_MS, timeout_unit="ms")
async def bring_up(dut):
    b = Bench(dut)
    await b.start()
    await b.after_reset_clear()

    # the run-time settings, from the header: the default, then each end
    # of the range, then the default again
    names = b.params()
    for name in names:
        reg = "PARAM_" + name
        assert await b.read(reg) == b.d(f"PARAM_{name}_DEFAULT"), f"{reg} after reset"
        for v in (b.d(f"PARAM_{name}_MIN"), b.d(f"PARAM_{name}_MAX"), b.d(f"PARAM_{name}_DEFAULT")):
            await b.write(reg, v)
            assert await b.read(reg) == v, f"{reg} = {v} does not read back"
    assert not (await b.read("STATUS")) & b.d("STATUS_REJECTED")
    dut._log.info("settings set from the header: %s", ", ".join(names) or "none")

    # events while software reads the counters: each only grows
    await b.write("CONTROL", b.d("CONTROL_CLEAR_COUNTERS"))
    s = b.streams
    s.results.clear()
    conns = b.rng.sample(range(b.d("NUM_CONN")), 24)
    evs = b.random_events(2000, conns)
    s.queue.extend(evs)
    last = {}
    reads = 0
    while s.queue:
        name, off, _ = b.rng.choice(b.counters)
        v = await b.read(off)
        assert v >= last.get(name, 0), f"COUNTER_{name} went from {last[name]} to {v}"
        last[name] = v
        reads += 1
    await s.drain(len(evs))
    for _ in range(4):  # a count is a cycle behind its handshake
        await RisingEdge(dut.clk)
    assert len(s.results) == len(evs), f"{len(s.results)} results for {len(evs)} events"
    counted = 0
    for name, off, pred in b.counters:
        want = sum(1 for r in s.results if pred(r))
        got = await b.read(off)
        assert got == want, f"COUNTER_{name} reads {got}, the result stream shows {want}"
        counted += want > 0
    errors = sum(1 for r in s.results if r["error"])
    assert 0 < errors < len(evs)
    for k in b.kinds:
        assert any(r["kind"] == k and not r["error"] for r in s.results), f"no result of kind {k}"
    dut._log.info("%d events, %d errors; %d counter reads meanwhile; all %d counters match the result stream (%d of them above 0)",
                  len(evs), errors, reads, len(b.counters), counted)


@cocotb.test(timeout_time=TIMEOUT_MS, timeout_unit="ms")
async def control_interface(dut):
    b = Bench(dut)
    await b.start()
    await b.after_reset_clear()
    s = b.streams
    num_conn = b.d("NUM_CONN")

    # identification, while events flow
    evs = b.random_events(400, b.rng.sample(range(num_conn), 8))
    s.results.clear()
    s.queue.extend(evs)
    got = await b.read("ID")
    assert got == b.d("ID_VALUE"), f"register ID reads {got:#010x}, the header says {b.d('ID_VALUE'):#010x}"
    assert await b.read("WORD_BITS") == b.d("WORD_BITS")
    assert await b.read("NUM_CONN") == num_conn
    assert await b.read("COUNTERS") == b.d("NUM_COUNTERS")
    for v in (0x5A17C0DE, 0, 0xFFFFFFFF, b.rng.getrandbits(32)):
        await b.write("SCRATCH", v)
        assert await b.read("SCRATCH") == v
    await s.drain(len(evs))

    # a word round trip, then a clear on command
    bits = b.d("WORD_BITS")
    words = [b.rng.getrandbits(32) for _ in range((bits + 31) // 32)]
    if bits % 32:
        words[-1] &= (1 << (bits % 32)) - 1
    conn = num_conn - 1
    st, _ = await b.word(conn, "WRITE_WORD", words)
    assert not st & b.d("STATUS_WORD_ERROR")
    st, back = await b.word(conn, "READ_WORD")
    assert back == words, f"connection {conn} reads back {back}, written {words}"
    await b.write("CONTROL", b.d("CONTROL_CLEAR_TABLE"))
    await b.idle()
    _, back = await b.word(conn, "READ_WORD")
    assert back == [0] * len(words), f"after CLEAR_TABLE connection {conn} reads {back}"

    # a word operation out of range, and a command while busy
    st, _ = await b.word(num_conn, "READ_WORD")
    assert st & b.d("STATUS_WORD_ERROR"), f"STATUS {st:#x}"
    await b.write("CONTROL", b.d("CONTROL_CLEAR_TABLE"))
    await b.write("CONTROL", b.d("CONTROL_READ_WORD"))  # the clear still runs
    assert (await b.read("STATUS")) & b.d("STATUS_REJECTED")
    await b.idle()
    await b.write("CONTROL", b.d("CONTROL_CLEAR_REJECTED"))
    assert not (await b.read("STATUS")) & b.d("STATUS_REJECTED")

    # a setting above its range is refused
    for name in b.params():
        reg, hi = "PARAM_" + name, b.d(f"PARAM_{name}_MAX")
        if hi == 0xFFFFFFFF:
            continue
        await b.write(reg, hi)
        await b.write(reg, hi + 1)
        assert await b.read(reg) == hi, f"{reg} took {hi + 1}, above its range"
        assert (await b.read("STATUS")) & b.d("STATUS_REJECTED"), f"{reg} = {hi + 1} was not refused"
        await b.write("CONTROL", b.d("CONTROL_CLEAR_REJECTED"))
        await b.write(reg, b.d(f"PARAM_{name}_DEFAULT"))
    dut._log.info("register map: identification, words, clears, refusals checked")
