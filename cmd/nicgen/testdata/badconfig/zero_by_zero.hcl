# 0/0 is an error of HCL's, named after its operation
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
  entries = 0/0
}
