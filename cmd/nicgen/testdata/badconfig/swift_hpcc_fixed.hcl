# swift's window needs an even fraction width (1/sqrt of 2^-frac is a
# shift); hpcc's AI rounds to 0 at 16 fraction bits.
name = "bad"
network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}
hardware {
  clock_mhz   = 250
  connections = 4096
}
block "swift" {
  frac_width = 15
}
block "hpcc" {
  ai_packets = 0.000001
}
