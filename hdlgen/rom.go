package hdlgen

// ROM is a combinational read of a constant table: values[addr], width bits
// each. An address beyond the table reads 0. It is emitted as a case
// statement, which synthesis maps to LUTs (or to a block ROM when the
// address or the data is registered).
func ROM(addr Value, width int, values []uint64) Expr {
	a := addr.node()
	r := mk(opROM, width, false, a)
	r.n.rom = append([]uint64(nil), values...)
	switch {
	case width < 1 || width > 64:
		return r.fail("ROM width %d out of range 1..64", width)
	case len(values) == 0:
		return r.fail("ROM with no values")
	case a.signed:
		return r.fail("ROM address must be unsigned")
	case a.width < 63 && uint64(len(values)) > uint64(1)<<uint(a.width):
		return r.fail("ROM of %d values needs more than %d address bits", len(values), a.width)
	}
	for i, v := range values {
		if width < 64 && v>>uint(width) != 0 {
			return r.fail("ROM value %d at address %d does not fit in %d bits", v, i, width)
		}
	}
	return r
}
