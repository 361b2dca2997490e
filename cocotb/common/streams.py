"""Valid/ready streams for cocotb testbenches.

A CycleLoop owns the clock and steps every attached component once per
cycle; a StreamSource offers beats on a sink port (s_<name>_*), holding
each one until it is accepted and inserting random idle cycles; a
StreamSink takes beats from a source port (m_<name>_*), deasserting ready
at random (backpressure) and checking that a stalled beat stays put.

Timing discipline, identical under every simulator: nothing is read or
written at the rising edge. Half a period after it (the falling edge)
every component drives its inputs; in the ReadOnly phase of that same time
step every component samples the settled outputs. What a component samples
in cycle c is therefore exactly what the DUT sees at the rising edge that
ends cycle c (the handshake of cycle c). This sidesteps the one place where
Icarus and Verilator differ: whether an edge callback sees the values from
before or after the edge's non-blocking assignments.
"""

from collections import deque

from cocotb.triggers import ReadOnly, Timer


class StreamError(AssertionError):
    """A protocol violation or an unknown (X/Z) value on a stream."""


def read_int(handle, what, cycle):
    """The integer value of a signal; X or Z bits are an error."""
    value = handle.value
    try:
        return value.integer
    except ValueError:
        raise StreamError(f"cycle {cycle}: {what} is {value.binstr} (X or Z)") from None


def read_data(handle):
    """The integer value of a data signal, or its bit string (e.g.
    ``xxxx``) when some bits are X or Z, so that a scoreboard can report
    the unknown value in context instead of failing here."""
    value = handle.value
    try:
        return value.integer
    except ValueError:
        return value.binstr


class CycleLoop:
    """Drives the clock and steps the components.

    Cycle c starts at the c-th rising edge. Components implement
    ``drive()`` (write inputs, called at the falling edge) and
    ``sample(cycle)`` (read outputs, called in the ReadOnly phase after
    the falling edge), and are stepped in the order they were added.
    """

    def __init__(self, clk, period_ns=10):
        if period_ns % 2:
            raise ValueError("period_ns must be even")
        self.clk = clk
        self._half = Timer(period_ns // 2, units="ns")
        self._read_only = ReadOnly()
        self.cycle = 0
        self.components = []

    async def start(self):
        """Hold the clock low for half a period before the first edge."""
        self.clk.value = 0
        await self._half

    async def step(self, components=None):
        comps = self.components if components is None else components
        self.clk.value = 1
        await self._half
        self.cycle += 1
        self.clk.value = 0
        for c in comps:
            c.drive()
        await self._read_only
        for c in comps:
            c.sample(self.cycle)
        await self._half

    async def run_until(self, done, max_cycles, what="the run"):
        """Step until done() is true; more than max_cycles is an error."""
        start = self.cycle
        while not done():
            if self.cycle - start >= max_cycles:
                raise StreamError(f"{what} did not finish within {max_cycles} cycles")
            await self.step()

    async def reset(self, rst, cycles=4, idle=()):
        """Hold the synchronous, active-high reset for a few cycles.

        The idle components are driven idle (their ``idle()``) and are
        not sampled: outputs may be unknown until reset has been seen.
        """

        class _Reset:
            def __init__(self, value):
                self.value = value

            def drive(self):
                rst.value = self.value
                for c in idle:
                    c.idle()

            def sample(self, cycle):
                pass

        for _ in range(cycles):
            await self.step([_Reset(1)])
        await self.step([_Reset(0)])


class StreamSource:
    """Offers beats on ``<prefix>_valid/ready`` and ``<prefix>_<field>``.

    A beat is a dict of field values. It is held, data unchanged, until a
    cycle where ready is 1; before each new beat the source stays idle
    for ``min_gap`` cycles after the previous acceptance, then with
    probability ``idle_prob`` per cycle (geometric gaps). While idle, the
    data ports carry random junk when ``junk`` is set: the DUT must ignore
    data without valid. ``on_accept(beat, cycle)`` is called for every
    accepted beat; ``accepted`` is the beat accepted in the cycle last
    sampled, or None.
    """

    def __init__(self, dut, prefix, fields, rng, idle_prob=0.0, junk=True, on_accept=None, min_gap=0):
        self.name = prefix
        self.valid = getattr(dut, f"{prefix}_valid")
        self.ready = getattr(dut, f"{prefix}_ready")
        self.fields = [(f, getattr(dut, f"{prefix}_{f}")) for f in fields]
        self.masks = [(1 << len(h)) - 1 for _, h in self.fields]
        self.rng = rng
        self.idle_prob = idle_prob
        self.junk = junk
        self.on_accept = on_accept
        self.min_gap = min_gap
        self.queue = deque()
        self.current = None
        self.accepted = None
        self.last_ready = None
        self._gap = 0  # idle cycles still owed to min_gap
        self._valid_out = None

    def send(self, beat):
        self.queue.append(beat)

    def busy(self):
        return self.current is not None or bool(self.queue)

    def _set_valid(self, v):
        if v != self._valid_out:
            self.valid.value = v
            self._valid_out = v

    def idle(self):
        self._set_valid(0)

    def drive(self):
        if self.current is None and self.queue:
            if self._gap:
                self._gap -= 1
            elif not (self.idle_prob and self.rng.random() < self.idle_prob):
                self.current = self.queue.popleft()
                for (f, h), mask in zip(self.fields, self.masks):
                    v = self.current[f]
                    if v & ~mask:
                        raise StreamError(f"{self.name}_{f} = {v} does not fit {len(h)} bits")
                    h.value = v
        if self.current is None:
            self._set_valid(0)
            if self.junk:
                for (_, h), mask in zip(self.fields, self.masks):
                    h.value = self.rng.getrandbits(len(h)) & mask
        else:
            self._set_valid(1)

    def sample(self, cycle):
        self.last_ready = read_int(self.ready, f"{self.name}_ready", cycle)
        self.accepted = None
        if self.current is not None and self.last_ready:
            beat, self.current = self.current, None
            self.accepted = beat
            self._gap = self.min_gap
            if self.on_accept is not None:
                self.on_accept(beat, cycle)


class StreamSink:
    """Takes beats from ``<prefix>_valid/ready`` and ``<prefix>_<field>``.

    Ready is 1 with probability ``ready_prob`` in each cycle. A beat that
    is valid while ready is 0 must still be valid, with the same data, in
    the next cycle. ``on_beat(beat, cycle)`` is called for every beat
    taken; ``took`` says whether a beat was taken in the cycle last
    sampled. Data fields with X or Z bits come as bit strings (read_data).
    """

    def __init__(self, dut, prefix, fields, rng, ready_prob=1.0, on_beat=None):
        self.name = prefix
        self.valid = getattr(dut, f"{prefix}_valid")
        self.ready = getattr(dut, f"{prefix}_ready")
        self.fields = [(f, getattr(dut, f"{prefix}_{f}")) for f in fields]
        self.rng = rng
        self.ready_prob = ready_prob
        self.on_beat = on_beat
        self.ready_now = 0
        self.last_valid = None
        self.took = False
        self.held = None  # beat seen valid while stalled
        self._ready_out = None

    def idle(self):
        self._set_ready(0)

    def _set_ready(self, v):
        self.ready_now = v
        if v != self._ready_out:
            self.ready.value = v
            self._ready_out = v

    def drive(self):
        self._set_ready(1 if self.ready_prob >= 1 or self.rng.random() < self.ready_prob else 0)

    def sample(self, cycle):
        valid = read_int(self.valid, f"{self.name}_valid", cycle)
        self.last_valid = valid
        self.took = bool(valid and self.ready_now)
        if not valid:
            if self.held is not None:
                raise StreamError(
                    f"cycle {cycle}: {self.name}_valid dropped while the beat {self.held} was stalled")
            return
        beat = {f: read_data(h) for f, h in self.fields}
        if self.held is not None and beat != self.held:
            raise StreamError(
                f"cycle {cycle}: {self.name} beat changed while stalled: {self.held} -> {beat}")
        if self.ready_now:
            self.held = None
            if self.on_beat is not None:
                self.on_beat(beat, cycle)
        else:
            self.held = beat
