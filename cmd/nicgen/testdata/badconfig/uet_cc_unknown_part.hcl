network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}

hardware {
  clock_mhz   = 250
  connections = 4096
}

block "uet_cc" {
  cc = "swift"
}
