verilog-out/hpcc/hpcc.v
