# rate_width = 4: no capacity fits 4-bit rates with 8-bit weights (this printed "want 1..0")
network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}
hardware {
  clock_mhz   = 250
  connections = 4096
}
block "sperc_link" {
  rate_width = 4
}
