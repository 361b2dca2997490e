# sperc_link: b is a rate per unit of weight, up to the capacity times the
# largest weight, and must stay below infinity (all-ones of rate_width).
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
block "sperc_link" {
  capacity = 2000000
}
