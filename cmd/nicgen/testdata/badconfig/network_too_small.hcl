network {
  link_gbps   = 1
  mtu         = 4096
  base_rtt_ns = 1000
}
hardware {
  clock_mhz   = 250
  connections = 4096
}
block "reps" {}
block "smartt" {}
