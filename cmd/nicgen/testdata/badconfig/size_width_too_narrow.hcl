network {
  link_gbps   = 400
  mtu         = 9000
  base_rtt_ns = 6000
}
hardware {
  clock_mhz   = 250
  connections = 4096
}
block "nscc" {
  size_width = 13
}
