"""cocotb testbench of `smartt` (SMaRTT, S0 Algorithms 1-3 with
Wait-to-Decrease; docs/blocks/smartt.md).

Run it with cocotb/run.py, which builds verilog-out/smartt/ and points
NICGEN_VECTORS at a file from `nicgen vectors smartt`.
"""

import cocotb

import connpipe


@cocotb.test()
async def vectors_random_timing(dut):
    """Golden-model vectors under random valid gaps and backpressure."""
    await connpipe.vectors_random_timing(dut)


@cocotb.test()
async def handshake_and_latency(dut):
    """The ready rule, 2-cycle latency and one event per clock."""
    await connpipe.handshake_and_latency(dut)
