verilog-out/irl_tokens/irl_tokens.v
