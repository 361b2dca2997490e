verilog-out/mcast_match/mcast_match.v
