verilog-out/reps/reps_cbuf.v
verilog-out/reps/reps_freeze.v
verilog-out/reps/reps.v
