# uet_cc's split engine (docs/blocks/uet_cc.md, "Split send path") on the
# default network: the load balancer and the bytes in flight on a short
# send path, nscc on a window path of its own that merges ACKs (and NACKs) in 8 slots
# and writes the window the send path reads.
#
#   nicgen config show -c docs/examples/uet-split.hcl
#   nicgen equiv uet_cc -c docs/examples/uet-split.hcl
#   nicgen synth uet_cc -c docs/examples/uet-split.hcl --target ecp5 --freq 200 --seeds 3

name = "uet-split"

network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}

hardware {
  clock_mhz   = 250
  connections = 4096
}

block "reps" {}

block "nscc" {
  merge_slots = 8
}

block "uet_cc" {
  send_path = "split"
}
