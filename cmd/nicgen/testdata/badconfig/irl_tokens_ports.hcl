# irl_tokens: the GPU ports of the table must fit the connection id.
name = "bad"
network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}
hardware {
  clock_mhz   = 250
  connections = 200
  conn_width  = 8
}
block "irl_tokens" {
  ports   = 300
  wm_max  = 2468
}
