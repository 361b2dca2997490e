# A 400 Gb/s NIC: 9 KiB jumbo frames, a 6 us base RTT (BDP 300,000 bytes,
# 33 packets), 16384 connections per block and a 322 MHz clock.
#
#   nicgen config show -c docs/examples/400g.hcl

name = "400g"

network {
  link_gbps   = 400
  mtu         = 9216
  base_rtt_ns = 6000
}

hardware {
  clock_mhz   = 322.265625 # 400GbE MAC clock
  connections = 16384
}

block "reps" {
  entries              = 16
  clear_on_freeze_exit = true # htsim's resetBuffer (A-13)
  lfsr_seed            = "0x1234ABCD"
}

block "reps_conf" {}

# The journal version without the adjustment period: every increase is
# applied at once.
block "nscc" {
  adjust_period = false
  fi_tol_ns     = 500
}
