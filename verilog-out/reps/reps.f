verilog-out/shared/reps_cbuf.v
verilog-out/shared/reps_freeze.v
verilog-out/reps/reps.v
