verilog-out/nscc/nscc_fastinc.v
verilog-out/nscc/nscc_qa.v
verilog-out/nscc/nscc.v
