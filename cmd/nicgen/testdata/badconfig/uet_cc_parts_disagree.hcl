# uet_cc composes nscc and reps on one event stream: both read s_event_now,
# so their timestamps must be of one width.
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
  time_width = 40
}

block "uet_cc" {}
