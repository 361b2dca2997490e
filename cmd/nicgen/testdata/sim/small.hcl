# REPS that explores two EVs after open and after a freeze, with a 100 ns
# freeze, so that a short trace shows recycling and freezing mode.
name = "sim-small"

network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}

hardware {
  clock_mhz   = 250
  connections = 16
}

block "reps" {
  entries      = 4
  explore_init = 2
  freeze_time  = 100
}
