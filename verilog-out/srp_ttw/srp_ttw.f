verilog-out/srp_ttw/srp_ttw.v
