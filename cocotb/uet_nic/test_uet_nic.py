"""uet_nic (docs/integration/uet_nic.v) driven as a NIC's queue manager and
network would drive it: uet_cc in a transmit and a receive path.

CONNS connections each send a message of PKTS packets of 4 KiB to one
receiver over a modelled 800 Gb/s bottleneck: 4.3 us of propagation each
way (the default configuration's 8.6 us base RTT), a queue that marks ECN
above MARK_Q packets at dequeue and trims a packet that finds TRIM_Q
packets queued (its header returns as a NACK). The queue manager offers
each connection's next packet as soon as its previous one has left (or
was held back), and offers a held-back or trimmed packet again.

The test checks, besides the run completing with every byte acknowledged:

  * every packet left with the entropy and timestamp that its feedback then
    carries back (the example's send FIFO pairs results with requests);
  * no packet left a connection whose last uet_cc result said it may not
    send (the cc_* status outputs);
  * every event that entered uet_cc, replayed through its golden model
    (`nicgen sim uet_cc`), gives exactly the results the hardware gave.
"""

import heapq
import json
import os
import subprocess
from collections import deque
from pathlib import Path

import cocotb

from streams import CycleLoop, read_int

CONNS = 8
PKTS = 240
SIZE = 4096
NS_PER_CYCLE = 4  # 250 MHz, the default configuration's clock
PROP = 1075  # cycles each way: 4.3 us
SERVICE_NS = 40.96  # 4 KiB at 800 Gb/s
MARK_Q = 24
TRIM_Q = 64
MAX_CYCLES = 200_000

KIND = {0: "open", 1: "send", 2: "ack", 3: "nack (trim)", 4: "timeout"}


class Nic:
    """The queue manager, the network and the monitors, stepped each cycle."""

    def __init__(self, dut):
        self.dut = dut
        self.cc = dut.uet_cc_inst
        self.left = [PKTS] * CONNS  # packets still to send (trimmed ones come back)
        self.acked = [0] * CONNS
        self.offers = deque(range(CONNS))  # connections with a packet to offer
        self.offer = None  # the request held on s_axis_tx_req
        self.rx = []  # heap of (due cycle, seq, beat)
        self.rx_seq = 0
        self.rx_beat = None
        self.opens = deque(range(CONNS))
        self.queue = deque()  # the bottleneck's packets
        self.link_free_ns = 0.0
        self.may = [False] * CONNS
        self.events, self.results = [], []
        self.sent = {}  # (conn, ts) -> entropy, of packets in the network
        self.stats = {"sends": 0, "defers": 0, "trims": 0, "marks": 0, "qa": 0, "recycled": 0}
        self.cycle = 0

    def feedback(self, due, beat):
        heapq.heappush(self.rx, (due, self.rx_seq, beat))
        self.rx_seq += 1

    def drive(self):
        d = self.dut
        # receive path: opens first, then the feedback that is due
        if self.rx_beat is None:
            if self.opens:
                c = self.opens.popleft()
                self.rx_beat = dict(conn=c, kind=0, size=0, ecn=0, ev=0, ts=0)
            elif self.rx and self.rx[0][0] <= self.cycle:
                self.rx_beat = heapq.heappop(self.rx)[2]
        b = self.rx_beat
        d.s_axis_rx_tvalid.value = int(b is not None)
        if b is not None:
            d.s_axis_rx_conn.value = b["conn"]
            d.s_axis_rx_kind.value = b["kind"]
            d.s_axis_rx_size.value = b["size"]
            d.s_axis_rx_ecn.value = b["ecn"]
            d.s_axis_rx_ev.value = b["ev"]
            d.s_axis_rx_ts.value = b["ts"]
        # transmit requests, once every connection is open
        if self.offer is None and self.offers and not self.opens:
            self.offer = self.offers.popleft()
        d.s_axis_tx_req_tvalid.value = int(self.offer is not None)
        if self.offer is not None:
            d.s_axis_tx_req_conn.value = self.offer
            d.s_axis_tx_req_size.value = SIZE
        d.m_axis_tx_defer_tready.value = 1
        d.m_axis_tx_pkt_tready.value = 1

    def sample(self, cycle):
        d, cc = self.dut, self.cc
        self.cycle = cycle
        # what entered uet_cc and what it answered, for the golden replay
        if read_int(cc.s_event_valid, "s_event_valid", cycle) and read_int(cc.s_event_ready, "s_event_ready", cycle):
            e = {f: read_int(getattr(cc, "s_event_" + f), f, cycle) for f in ("conn", "kind", "size", "ecn", "rtt", "ev", "now")}
            if e["kind"] == 1:
                assert self.may[e["conn"]], f"cycle {cycle}: a send of connection {e['conn']}, whose last result said it may not send"
            self.events.append(e)
        if read_int(d.cc_valid, "cc_valid", cycle):
            r = {f: read_int(getattr(d, "cc_" + f), f, cycle) for f in ("conn", "kind", "cwnd", "inflight", "may_send", "case", "qa", "fast", "explored", "frozen", "error")}
            r["ev"] = read_int(cc.m_result_ev, "m_result_ev", cycle)
            self.results.append(r)
            if not r["error"]:
                self.may[r["conn"]] = bool(r["may_send"])
            self.stats["qa"] += r["qa"]
            if r["kind"] == 1 and not r["explored"]:
                self.stats["recycled"] += 1
        # receive handshake
        if self.rx_beat is not None and read_int(d.s_axis_rx_tready, "s_axis_rx_tready", cycle):
            b = self.rx_beat
            self.rx_beat = None
            if b["kind"] == 2:
                self.acked[b["conn"]] += 1
            elif b["kind"] == 3:
                self.left[b["conn"]] += 1  # the queue manager sends it again
                if self.left[b["conn"]] == 1:
                    self.offers.append(b["conn"])
        # transmit request handshake: sent into uet_cc or held back
        if self.offer is not None and read_int(d.s_axis_tx_req_tready, "s_axis_tx_req_tready", cycle):
            c = self.offer
            self.offer = None
            if read_int(d.m_axis_tx_defer_tvalid, "m_axis_tx_defer_tvalid", cycle):
                self.stats["defers"] += 1
                self.offers.append(c)
            else:
                self.stats["sends"] += 1
                self.left[c] -= 1
        # a packet leaves: into the network
        if read_int(d.m_axis_tx_pkt_tvalid, "m_axis_tx_pkt_tvalid", cycle):
            c = read_int(d.m_axis_tx_pkt_conn, "m_axis_tx_pkt_conn", cycle)
            pkt = dict(conn=c, size=read_int(d.m_axis_tx_pkt_size, "size", cycle),
                       ev=read_int(d.m_axis_tx_pkt_ev, "ev", cycle), ts=read_int(d.m_axis_tx_pkt_ts, "ts", cycle))
            assert pkt["size"] == SIZE, f"cycle {cycle}: packet of {pkt['size']} bytes, requests are {SIZE}"
            self.sent[(c, pkt["ts"])] = pkt["ev"]
            self.arrive(pkt, cycle + PROP)
            if self.left[c] > 0:
                self.offers.append(c)
        self.serve(cycle)

    def arrive(self, pkt, at):
        # the switch sees packets in the order they left, PROP later
        self.queue.append((at, pkt))

    def serve(self, cycle):
        """The bottleneck: trims on arrival at a full queue, serialises one
        packet per SERVICE_NS, marks at dequeue above MARK_Q."""
        now_ns = cycle * NS_PER_CYCLE
        waiting = [q for q in self.queue if q[0] <= cycle]
        if len(waiting) > TRIM_Q:
            at, pkt = waiting[-1]
            self.queue.remove((at, pkt))
            self.stats["trims"] += 1
            self.feedback(cycle + PROP, dict(conn=pkt["conn"], kind=3, size=pkt["size"], ecn=0, ev=pkt["ev"], ts=pkt["ts"]))
            return
        if waiting and self.link_free_ns <= now_ns:
            at, pkt = waiting[0]
            self.queue.remove((at, pkt))
            self.link_free_ns = max(self.link_free_ns, now_ns) + SERVICE_NS
            ecn = int(len(waiting) - 1 > MARK_Q)
            self.stats["marks"] += ecn
            self.feedback(cycle + PROP, dict(conn=pkt["conn"], kind=2, size=pkt["size"], ecn=ecn, ev=pkt["ev"], ts=pkt["ts"]))

    def done(self):
        return all(a >= PKTS for a in self.acked) and not self.rx and self.rx_beat is None


def golden_results(events, workdir):
    """Replays the events through uet_cc's golden model (nicgen sim)."""
    root = Path(os.environ["NICGEN_ROOT"])
    trace = Path(workdir) / "uet_nic_events.jsonl"
    out = Path(workdir) / "uet_nic_golden.jsonl"
    trace.write_text("".join(json.dumps(e) + "\n" for e in events))
    subprocess.run(["go", "run", "./cmd/nicgen", "sim", "uet_cc", "--events", str(trace), "-o", str(out)],
                   cwd=root, check=True)
    return [json.loads(line) for line in out.read_text().splitlines()]


@cocotb.test()
async def nic_loop(dut):
    """Sends and acks of CONNS connections over a modelled bottleneck."""
    loop = CycleLoop(dut.clk, period_ns=NS_PER_CYCLE)
    nic = Nic(dut)
    for s in ("s_axis_rx_tvalid", "s_axis_tx_req_tvalid"):
        getattr(dut, s).value = 0
    dut.m_axis_tx_defer_tready.value = 1
    dut.m_axis_tx_pkt_tready.value = 1
    dut.rst.value = 1
    await loop.start()
    for _ in range(4):
        await loop.step([])
    dut.rst.value = 0
    await loop.step([])
    loop.components.append(nic)
    while not nic.done():
        assert loop.cycle < MAX_CYCLES, f"not done after {MAX_CYCLES} cycles: acked {nic.acked}"
        await loop.step()
    # the last events' results
    for _ in range(100):
        if len(nic.results) == len(nic.events):
            break
        await loop.step()
    # every ack and nack carried back the entropy its packet left with
    # (the network echoes what it got: so every packet left with one)
    assert len(nic.sent) == nic.stats["sends"], f"{len(nic.sent)} packets left, {nic.stats['sends']} sends"

    want = golden_results(nic.events, os.getcwd())
    assert len(want) == len(nic.results), f"{len(nic.results)} results, the golden model {len(want)}"
    for i, (got, w) in enumerate(zip(nic.results, want)):
        for f in ("conn", "cwnd", "inflight", "may_send", "case", "qa", "fast", "explored", "frozen", "error", "ev"):
            g = got[f]
            if isinstance(w[f], bool):
                g = bool(g)
            assert g == w[f], f"result {i} ({KIND.get(got['kind'])} of connection {got['conn']}): {f} {g}, the golden model {w[f]}"
    st = nic.stats
    dut._log.info(f"{loop.cycle} cycles, {len(nic.events)} events through uet_cc, all equal to the golden model: "
                  f"{st['sends']} sends ({st['recycled']} on recycled entropies), {st['defers']} requests held back, "
                  f"{st['trims']} trims, {st['marks']} ECN marks, {st['qa']} QuickAdapts")
    assert st["defers"] > 0 and st["trims"] > 0 and st["marks"] > 0, f"the run did not reach the window's limits: {st}"
