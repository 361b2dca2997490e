verilog-out/lru_arb/lru_arb.v
