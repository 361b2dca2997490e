# ports = 1: the pipelined shell needs two connections at least (docs/config.md gives 2..65536)
network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}
hardware {
  clock_mhz   = 250
  connections = 4096
}
block "lru_arb" {
  ports = 1
}
