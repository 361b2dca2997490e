# an attribute without a value
network {
  link_gbps =
  mtu       = 4096
}
