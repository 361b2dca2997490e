verilog-out/srp_tx/srp_tx.v
