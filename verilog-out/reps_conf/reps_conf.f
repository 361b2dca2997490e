verilog-out/reps_conf/reps_conf.v
