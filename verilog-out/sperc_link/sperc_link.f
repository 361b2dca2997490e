verilog-out/sperc_link/sperc_link.v
