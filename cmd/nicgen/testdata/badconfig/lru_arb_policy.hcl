# lru_arb: the policy is one of the two arbiters the thesis names.
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
block "lru_arb" {
  vcs    = 3
  policy = "fifo"
}
