package connpipe

// CountInto makes the build of parameters with core c count its datapath
// stages into n, as NeededDepth does (for tests outside the package).
func CountInto(c *Core, n *int) { c.used = n }
