"""cocotb testbench of any block on the pipelined shell (blocks/connpipe)
that has no folder of its own under cocotb/: the shared tests of
connpipe.py against the block's golden vectors (`nicgen vectors BLOCK`),
whose header gives the pipeline depth, latency and credits.
"""

import cocotb

import connpipe


@cocotb.test()
async def vectors_random_timing(dut):
    """Golden-model vectors under random valid gaps and backpressure."""
    await connpipe.vectors_random_timing(dut)


@cocotb.test()
async def latency_isolated(dut):
    """Exactly the header's latency from acceptance to result for isolated events."""
    await connpipe.latency_isolated(dut)


@cocotb.test()
async def throughput_no_stall(dut):
    """One event per clock across connections, D cycles apart on one."""
    await connpipe.throughput_no_stall(dut)


@cocotb.test()
async def backpressure_credits(dut):
    """Full result buffer, credits and a registered s_event_ready."""
    await connpipe.backpressure_credits(dut)
