verilog-out/srp_rx/srp_rx.v
