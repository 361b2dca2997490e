# Swift with the thesis's two changes (S3 chapter 4): Variable Additive
# Increase with Table 4.1's Swift constants, Sampling Frequency every 30
# congested ACKs, and the additive increase on every ACK (S3:L1026), on
# 1024 connections of a 100 Gb/s NIC.
#
#   nicgen config show -c docs/examples/swift-vai-sf.hcl
#   nicgen budget -c docs/examples/swift-vai-sf.hcl
#   nicgen equiv swift -c docs/examples/swift-vai-sf.hcl

name = "swift-vai-sf"

network {
  link_gbps   = 100
  mtu         = 4096
  base_rtt_ns = 12000
}

hardware {
  clock_mhz   = 150
  connections = 1024
}

block "swift" {
  sampling_frequency = 30
  always_ai          = true
  vai                = true
  fs_max_cwnd        = 100 # the datacenter runs (Table 3.1)
}
