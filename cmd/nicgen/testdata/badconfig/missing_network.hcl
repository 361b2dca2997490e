hardware {
  clock_mhz   = 250
  connections = 4096
}
block "reps" {}
