verilog-out/onerc_host/onerc_host.v
