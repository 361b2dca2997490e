verilog-out/shared/reps_cbuf.v
verilog-out/shared/reps_freeze.v
verilog-out/uet_cc/uet_cc.v
