# onerc_host: the connections of the host must fit the connection id.
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
block "onerc_host" {
  connections = 100000
  rate_width  = 32
}
