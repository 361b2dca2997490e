# One merge slot is no merging shell: 0 or 2..32.
network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}
hardware {
  clock_mhz   = 250
  connections = 4096
}
block "swift" {
  merge_slots = 1
}
