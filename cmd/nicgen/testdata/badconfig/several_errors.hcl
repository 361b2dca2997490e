network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
  base_rtt_us = 8.6
}
hardware {
  clock_mhz   = "fast"
  connections = 4096
}
block "reps" {
  entries = 65
}
block "smarrt" {}
