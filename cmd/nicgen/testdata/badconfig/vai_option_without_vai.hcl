# An option of a feature the block leaves off has no effect: it is an
# error, not dropped (hpcc's VAI options without vai = true).
network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}
hardware {
  clock_mhz   = 250
  connections = 4096
}
block "hpcc" {
  ai_cap = 5
}
