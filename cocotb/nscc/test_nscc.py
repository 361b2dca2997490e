"""cocotb testbench of `nscc` (SMaRTT journal version, S1 Algorithms 1-4,
the basis of the UEC NSCC; docs/blocks/smartt.md).

Run it with cocotb/run.py, which builds verilog-out/nscc/ and points
NICGEN_VECTORS at a file from `nicgen vectors nscc`.
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
