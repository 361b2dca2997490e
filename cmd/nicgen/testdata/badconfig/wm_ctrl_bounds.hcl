# wm_ctrl: WM_MIN must be below WM_MAX; the watermark's fraction width
# must be even (1/sqrt of 2^-frac is a shift).
name = "bad"
network {
  link_gbps   = 800
  mtu         = 4096
  base_rtt_ns = 8600
}
hardware {
  clock_mhz   = 250
  connections = 4096
}
block "wm_ctrl" {
  wm_min     = 3000
  frac_width = 7
}
