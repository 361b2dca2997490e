verilog-out/wm_ctrl/wm_ctrl.v
