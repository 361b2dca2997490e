verilog-out/smartt/smartt_fastinc.v
verilog-out/smartt/smartt_qa.v
verilog-out/smartt/smartt_wtd.v
verilog-out/smartt/smartt.v
