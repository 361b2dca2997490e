verilog-out/nscc/nscc.v
