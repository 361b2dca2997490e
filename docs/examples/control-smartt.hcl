# SMaRTT (the conference version, S0) with AXI-Lite control and status:
# smartt inside its wrapper smartt_ctl, as docs/examples/control.hcl does
# for the UEC engine and its parts (docs/control.md). The wrapper sets
# TARGET_RTT, derives MI_GAIN from it, and sets the QuickAdapt scaling at
# run time.
#
#   nicgen generate -c docs/examples/control-smartt.hcl -o build/control-smartt

name = "control-smartt"

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

block "smartt" {}
