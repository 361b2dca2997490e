# An 800 Gb/s NIC in the papers' network (8.6 us base RTT, 4 KiB MTU) with
# the state trimmed for a large connection table: 65536 connections, 8-bit
# EVs (A-14: 64 bits per connection less for 8 entries) and the nscc window
# with 4 fraction bits.
#
#   nicgen budget -c docs/examples/800g.hcl

name = "800g"

network {
  link_gbps         = 800
  mtu               = 4096
  base_rtt_ns       = 8600
  target_rtt_factor = 1.5
}

hardware {
  clock_mhz   = 400
  connections = 65536
  time_width  = 32
}

block "reps" {
  ev_width    = 8
  head_width  = 3
  count_width = 4
}

block "smartt" {
  wtd_shift              = 5
  timeouts_replace_trims = true
}

block "nscc" {
  f                    = 4
  trims_count_as_acked = false
  delay_qa             = false
}
