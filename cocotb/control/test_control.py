"""The AXI-Lite control and status wrapper of a block (<block>_ctl,
docs/control.md), driven as software and a NIC would drive it, with the
register offsets taken from the generated C header <block>_ctl.h.

  * after reset the wrapper clears the table: s_event_ready stays low for
    at least NUM_CONN cycles while STATUS.CLEAR_BUSY reads 1, and an event
    offered all along is taken only after;
  * ID, WORD_BITS, NUM_CONN and COUNTERS read what the header says, and
    SCRATCH reads back what was written;
  * a word written to a connection reads back, and a clear on command
    reads back as zeros;
  * open events to many connections, and events to a connection out of
    range, are counted by COUNTER_EVENTS_OPEN and COUNTER_ERRORS exactly as
    the result stream showed them;
  * a command while busy sets STATUS.REJECTED, and CLEAR_REJECTED clears it;
  * every run-time setting PARAM_<NAME> reads its default after reset,
    takes its range's ends, and refuses a value above it (REJECTED).
"""

import os
import random
import re
from pathlib import Path

import cocotb

from streams import CycleLoop, read_int


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


class Ctl:
    """AXI-Lite master, event source and result sink, stepped each cycle."""

    def __init__(self, dut, rng, event_ports):
        self.dut = dut
        self.rng = rng
        self.txn = None  # ("w", addr, data) or ("r", addr)
        self.aw_done = False
        self.done = None  # the finished transaction's read data (or 0)
        self.event = None  # the event offered: {field: value}
        self.taken = []  # events accepted
        self.results = []  # (kind, error) of the results taken
        self.ready_low = 0  # cycles with an event offered and s_event_ready low
        self.event_ports = event_ports  # every s_event_* data input

    def drive(self):
        d = self.dut
        d.s_axil_bready.value = 1
        d.s_axil_rready.value = 1
        d.s_axil_awvalid.value = 0
        d.s_axil_wvalid.value = 0
        d.s_axil_arvalid.value = 0
        if self.txn and self.txn[0] == "w" and not self.aw_done:
            d.s_axil_awaddr.value = self.txn[1]
            d.s_axil_wdata.value = self.txn[2]
            d.s_axil_wstrb.value = 0xF
            d.s_axil_awvalid.value = 1
            d.s_axil_wvalid.value = 1
        if self.txn and self.txn[0] == "r" and not self.aw_done:
            d.s_axil_araddr.value = self.txn[1]
            d.s_axil_arvalid.value = 1
        d.s_event_valid.value = 1 if self.event else 0
        for p in self.event_ports:
            getattr(d, p).value = self.event.get(p, 0) if self.event else 0
        d.m_result_ready.value = 1 if self.rng.random() < 0.8 else 0

    def sample(self, cycle):
        d = self.dut
        if self.txn:
            if self.txn[0] == "w":
                if read_int(d.s_axil_awready, "s_axil_awready", cycle) and not self.aw_done:
                    assert read_int(d.s_axil_wready, "s_axil_wready", cycle), "awready without wready"
                    self.aw_done = True
                if read_int(d.s_axil_bvalid, "s_axil_bvalid", cycle):
                    assert read_int(d.s_axil_bresp, "s_axil_bresp", cycle) == 0
                    self.txn, self.done = None, 0
            else:
                if read_int(d.s_axil_arready, "s_axil_arready", cycle):
                    self.aw_done = True
                if read_int(d.s_axil_rvalid, "s_axil_rvalid", cycle):
                    assert read_int(d.s_axil_rresp, "s_axil_rresp", cycle) == 0
                    self.txn, self.done = None, read_int(d.s_axil_rdata, "s_axil_rdata", cycle)
        if self.event:
            if read_int(d.s_event_ready, "s_event_ready", cycle):
                self.taken.append(self.event)
                self.event = None
            else:
                self.ready_low += 1
        if read_int(d.m_result_valid, "m_result_valid", cycle) and d.m_result_ready.value.integer:
            self.results.append((read_int(d.m_result_kind, "m_result_kind", cycle),
                                 read_int(d.m_result_error, "m_result_error", cycle)))


class Bench:
    def __init__(self, dut):
        block = os.environ["NICGEN_BLOCK"]
        self.h = header_defines(Path(os.environ["NICGEN_RTL"]) / block / f"{block}_ctl.h")
        self.p = block.upper() + "_CTL_"
        text = (Path(os.environ["NICGEN_RTL"]) / block / f"{block}_ctl.h").read_text()
        m = re.search(r"#define\s+" + self.p + r"REG_WORD_DATA\(i\)\s+\((0x[0-9A-Fa-f]+)u \+ 4u \* \(i\)\)", text)
        assert m, "the header has no REG_WORD_DATA(i)"
        self.word_base = int(m.group(1), 16)
        self.dut = dut
        self.loop = CycleLoop(dut.clk)
        top = Path(os.environ["NICGEN_RTL"]) / block / f"{block}_ctl.v"
        ports = re.findall(r"^\s*input\s+wire\s+(?:\[[^\]]*\]\s*)?(s_event_\w+)", top.read_text(), re.M)
        self.ctl = Ctl(dut, random.Random(int(os.environ.get("NICGEN_SEED", "1"))),
                       sorted(p for p in ports if p != "s_event_valid"))
        self.loop.components.append(self.ctl)

    def d(self, name):
        return self.h[self.p + name]

    def word_data(self, i):
        return self.word_base + 4 * i

    async def txn(self, t):
        self.ctl.txn, self.ctl.aw_done, self.ctl.done = t, False, None
        for _ in range(100):
            await self.loop.step()
            if self.ctl.done is not None:
                return self.ctl.done
        raise AssertionError(f"AXI-Lite {t} did not complete")

    async def write(self, reg, value):
        await self.txn(("w", self.d("REG_" + reg) if isinstance(reg, str) else reg, value))

    async def read(self, reg):
        return await self.txn(("r", self.d("REG_" + reg) if isinstance(reg, str) else reg))

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
                await self.write(self.word_data(i), v)
        await self.write("CONTROL", self.d("CONTROL_" + op))
        st = await self.idle()
        regs = (self.d("WORD_BITS") + 31) // 32
        return st, [await self.read(self.word_data(i)) for i in range(regs)]

    async def events(self, evs):
        for e in evs:
            self.ctl.event = e
            for _ in range(10000):
                await self.loop.step()
                if self.ctl.event is None:
                    break
            else:
                raise AssertionError(f"event {e} never taken")
        for _ in range(200):  # the results drain
            await self.loop.step()


@cocotb.test()
async def control_interface(dut):
    b = Bench(dut)
    ctl = b.ctl
    ctl.drive()  # every input driven (idle) from the start: Icarus starts them at X
    dut.rst.value = 1
    await b.loop.start()
    for _ in range(4):
        await b.loop.step([])
    dut.rst.value = 0
    await b.loop.step([])

    # the clear after reset, with an event offered all along
    num_conn = b.d("NUM_CONN")
    ctl.event = {"s_event_conn": 1, "s_event_kind": 0}
    start = b.loop.cycle
    busy_seen = False
    while ctl.event is not None:
        st = await b.read("STATUS")
        busy_seen |= bool(st & b.d("STATUS_CLEAR_BUSY"))
        assert b.loop.cycle - start < 4 * num_conn + 1000, "the clear never ends"
    assert busy_seen, "STATUS.CLEAR_BUSY never read 1 during the clear"
    assert ctl.ready_low >= num_conn, f"s_event_ready low {ctl.ready_low} cycles for {num_conn} connections"
    assert not (await b.read("STATUS")) & b.d("STATUS_CLEAR_BUSY")
    dut._log.info("clear after reset: s_event_ready low for %d cycles, %d connections", ctl.ready_low, num_conn)

    # identification
    assert await b.read("ID") == b.d("ID_VALUE")
    assert await b.read("WORD_BITS") == b.d("WORD_BITS")
    assert await b.read("NUM_CONN") == num_conn
    assert await b.read("COUNTERS") == b.d("NUM_COUNTERS")
    await b.write("SCRATCH", 0x5A17C0DE)
    assert await b.read("SCRATCH") == 0x5A17C0DE

    # a word round trip, then a clear on command
    bits = b.d("WORD_BITS")
    words = [random.Random(3).getrandbits(32) for _ in range((bits + 31) // 32)]
    if bits % 32:
        words[-1] &= (1 << (bits % 32)) - 1
    st, _ = await b.word(7, "WRITE_WORD", words)
    assert not st & b.d("STATUS_WORD_ERROR")
    st, back = await b.word(7, "READ_WORD")
    assert back == words, f"connection 7 reads back {back}, written {words}"
    await b.write("CONTROL", b.d("CONTROL_CLEAR_TABLE"))
    await b.idle()
    _, back = await b.word(7, "READ_WORD")
    assert back == [0] * len(words), f"after CLEAR_TABLE connection 7 reads {back}"

    # events: opens of many connections and some out of range
    await b.write("CONTROL", b.d("CONTROL_CLEAR_COUNTERS"))
    ctl.results.clear()
    rng = random.Random(5)
    evs = []
    for i in range(300):
        conn = rng.randrange(num_conn) if rng.random() < 0.9 else num_conn + rng.randrange(8)
        evs.append({"s_event_conn": conn, "s_event_kind": 0})
    await b.events(evs)
    assert len(ctl.results) == len(evs), f"{len(ctl.results)} results for {len(evs)} events"
    opens = sum(1 for k, e in ctl.results if k == 0 and not e)
    errors = sum(1 for _, e in ctl.results if e)
    assert errors > 0 and opens > 0
    assert await b.read("COUNTER_EVENTS_OPEN") == opens
    assert await b.read("COUNTER_ERRORS") == errors
    dut._log.info("counters: %d opens, %d errors, as the result stream showed", opens, errors)

    # a word operation out of range, and a command while busy
    st, _ = await b.word(num_conn, "READ_WORD")
    assert st & b.d("STATUS_WORD_ERROR"), f"STATUS {st:#x}"
    await b.write("CONTROL", b.d("CONTROL_CLEAR_TABLE"))
    await b.write("CONTROL", b.d("CONTROL_READ_WORD"))  # the clear still runs
    assert (await b.read("STATUS")) & b.d("STATUS_REJECTED")
    await b.idle()
    await b.write("CONTROL", b.d("CONTROL_CLEAR_REJECTED"))
    assert not (await b.read("STATUS")) & b.d("STATUS_REJECTED")

    # the run-time settings: reset to their defaults, their range's ends
    # taken, a value above it refused
    names = sorted(k[len(b.p + "REG_PARAM_"):] for k in b.h if k.startswith(b.p + "REG_PARAM_"))
    for name in names:
        reg, lo, hi = "PARAM_" + name, b.d(f"PARAM_{name}_MIN"), b.d(f"PARAM_{name}_MAX")
        assert await b.read(reg) == b.d(f"PARAM_{name}_DEFAULT"), f"{reg} after reset"
        for v in (lo, hi):
            await b.write(reg, v)
            assert await b.read(reg) == v, f"{reg} = {v} does not read back"
        if hi < 0xFFFFFFFF:
            await b.write(reg, hi + 1)
            assert await b.read(reg) == hi, f"{reg} took {hi + 1}, above its range"
            assert (await b.read("STATUS")) & b.d("STATUS_REJECTED"), f"{reg} = {hi + 1} was not refused"
            await b.write("CONTROL", b.d("CONTROL_CLEAR_REJECTED"))
        await b.write(reg, b.d(f"PARAM_{name}_DEFAULT"))
    dut._log.info("settings: %s", ", ".join(names) or "none")
