# A 100 Gb/s NIC on a network with a 12 us base RTT: the reference BDP of
# SMaRTT's parameter scaling (S0:L283), 150,000 bytes, so gamma = 1.
#
#   nicgen config show -c docs/examples/100g-12us.hcl
#   nicgen generate -c docs/examples/100g-12us.hcl -o build/100g/rtl --constraints build/100g/xdc --datasheets build/100g/doc

name = "100g-12us"

network {
  link_gbps   = 100
  mtu         = 4096
  base_rtt_ns = 12000 # 12 us
}

hardware {
  clock_mhz   = 200
  connections = 1024
}

# REPS with the buffer pointers at their minimum widths for 8 entries
# (3 and 4 bits instead of S4 Table 1's 8 and 8: 9 bits per connection
# saved, docs/blocks/reps.md). The explore counter is derived from the BDP
# (37 packets) and stays 8 bits wide.
block "reps" {
  entries     = 8
  head_width  = 3
  count_width = 4
  freeze_time = 2 * 1000 * 1000 # 2 ms in 1 ns ticks
}

block "reps_conf" {
  num_entropies = 64
}

block "smartt" {}

block "nscc" {}
