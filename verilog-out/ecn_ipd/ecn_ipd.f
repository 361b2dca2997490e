verilog-out/ecn_ipd/ecn_ipd.v
