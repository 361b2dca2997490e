verilog-out/onerc_switch/onerc_switch.v
