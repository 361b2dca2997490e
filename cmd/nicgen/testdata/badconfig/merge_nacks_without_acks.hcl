# NACKs fold by the ACKs' merge rule: merge_nacks needs merge_acks.
network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}
hardware {
  clock_mhz   = 250
  connections = 4096
}
block "nscc" {
  merge_slots = 8
  merge_acks  = false
  merge_nacks = true
}
