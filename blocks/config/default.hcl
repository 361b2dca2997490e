# The embedded default configuration of nicgen: the papers' setting.
# Every command uses it when no -c FILE is given. Values that are not
# written here are defaults or derived from the network: `nicgen config
# show` prints every resolved value and where it comes from, and
# docs/config.md describes every attribute.

name = "default"

# 800 Gb/s, 4 KiB MTU, 8.6 us base RTT (S0:L324, S0:L377): a BDP of
# 860,000 bytes, 210 packets.
network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}

hardware {
  clock_mhz   = 250
  connections = 4096
}

# REPS, S4: S4 Table 1 widths, 8 entries (193 bits per connection).
block "reps" {}

# REPS, S0 Algorithm 4: 256 entropies.
block "reps_conf" {}

# SMaRTT, S0 (conference).
block "smartt" {}

# SMaRTT, S1 (journal, UEC NSCC).
block "nscc" {}
