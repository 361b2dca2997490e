# 1/0 is infinite in HCL, 0/0 an error of its own
network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}
hardware {
  clock_mhz   = 250
  connections = 4096
}
block "reps" {
  entries = 1/0
}
