verilog-out/nscc/nscc_fastinc.v
verilog-out/nscc/nscc_qa.v
verilog-out/nscc/smartt_recip_w20.v
verilog-out/nscc/smartt_recip_w27.v
verilog-out/nscc/nscc.v
