verilog-out/smartt/smartt_wtd.v
verilog-out/smartt/smartt.v
