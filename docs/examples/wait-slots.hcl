# Waiting slots for the seven deep blocks whose events are answered one by one
# (docs/pipeline.md, "Merge stage"; the attribute wait_slots): an event
# whose connection is in flight waits in a slot while the events behind
# it pass, so no connection waits behind another. Nothing merges: each
# event has its own result, and a connection still gets one event per
# pipeline_depth cycles.
#
#   nicgen config show -c docs/examples/wait-slots.hcl
#   nicgen equiv wm_ctrl -c docs/examples/wait-slots.hcl

name = "wait-slots"

network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}

hardware {
  clock_mhz   = 250
  connections = 4096
}

block "ecn_ipd" {
  wait_slots = 32
}

block "irl_tokens" {
  wait_slots = 32
}

block "mcast_match" {
  wait_slots = 32
}

block "onerc_switch" {
  wait_slots = 32
}

block "sperc_link" {
  wait_slots = 32
}

block "srp_tx" {
  wait_slots = 32
}

block "wm_ctrl" {
  wait_slots = 32
}
