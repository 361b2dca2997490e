# The UEC transport engine and its parts with AXI-Lite control and status:
# every block is generated inside its wrapper <block>_ctl, which clears the
# state table after reset and on command, reads and writes one
# connection's word, and counts the results (docs/control.md). Each
# block's folder gets the C header <block>_ctl.h of the register map.
#
#   nicgen generate -c docs/examples/control.hcl -o build/control

name = "control"

network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}

hardware {
  clock_mhz   = 250
  connections = 4096
  control     = true
}

block "uet_cc" {}
block "nscc" {}
block "reps" {}
