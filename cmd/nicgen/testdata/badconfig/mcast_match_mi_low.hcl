# mcast_match: the MI factor below mi_low_lat is a whole number of fifths.
name = "bad"
network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}
hardware {
  clock_mhz   = 250
  connections = 64
}
block "mcast_match" {
  members = 7
  mi_low  = 0.75
}
