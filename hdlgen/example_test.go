package hdlgen

// exampleModules builds a small design used by the emitter tests: an
// accumulator with a valid/ready result stream, a combinational submodule,
// a state table and a process with an if/else chain.
func exampleModules() *Module {
	sat := NewModule("ex_satadd", "Saturating 8-bit adder (combinational).")
	a := sat.Input("a", 8, "first operand")
	b := sat.Input("b", 8, "second operand")
	y := sat.Output("y", 8, "a + b clamped to 255")
	sat.Assign(y, a.AddSat(b))

	m := NewModule("ex_acc", "Per-connection saturating accumulator.")
	m.Note("example design of the hdlgen tests")
	seed := m.Param("INIT", 8, 3, "value loaded by a clear")
	m.Group("Input stream")
	inValid := m.Input("s_in_valid", 1, "input valid")
	inReady := m.Output("s_in_ready", 1, "input ready")
	inConn := m.Input("s_in_conn", 2, "connection")
	inClear := m.Input("s_in_clear", 1, "clear the accumulator")
	inData := m.Input("s_in_data", 8, "value to add")
	m.Group("Output stream")
	outValid := m.Output("m_out_valid", 1, "output valid")
	outReady := m.Input("m_out_ready", 1, "output ready")
	outSum := m.Output("m_out_sum", 8, "accumulated value")
	m.Qualify(outValid, outSum)

	word := NewLayout("acc_word").Field("sum", 8, "running sum").Field("count", 4, "additions, saturating")
	table := m.Memory("acc", 4, word, true)
	validReg := m.Reg("out_valid", 1, "result register holds a value", ResetTo(0))
	sumReg := m.Reg("out_sum", 8, "result value", NoReset())
	s1Valid := m.Reg("s1_valid", 1, "stage 1 holds an event", ResetTo(0))
	s1Conn := m.Reg("s1_conn", 2, "stage 1 connection", NoReset())
	s1Clear := m.Reg("s1_clear", 1, "stage 1 clear", NoReset())
	s1Data := m.Reg("s1_data", 8, "stage 1 value", NoReset())
	total := m.Reg("total", 16, "events executed", ResetTo(0), GlobalState())

	advance := m.Wire("advance", validReg.Not().Or(outReady))
	m.Assign(inReady, advance)
	m.Assign(outValid, validReg)
	m.Assign(outSum, sumReg)
	rd := m.Read(table, inConn, advance)
	cur := word.Unpack(rd, "cur")

	u := m.Instantiate("u_add", sat)
	u.In("a", cur.F("sum")).In("b", s1Data)
	newSum := Mux(s1Clear, seed, u.Out("y")).Named("new_sum")
	newCount := Mux(s1Clear, Const(4, 0), cur.F("count").AddSat(Const(4, 1)))
	m.Write(table, s1Conn, word.Pack(map[string]Value{"sum": newSum, "count": newCount}), advance.And(s1Valid))

	m.Comb("pipeline", func(p *Process) {
		p.If(advance, func() {
			p.Set(s1Valid, inValid)
			p.Set(s1Conn, inConn)
			p.Set(s1Clear, inClear)
			p.Set(s1Data, inData)
			p.Set(validReg, s1Valid)
			p.Set(sumReg, newSum)
			p.If(s1Valid.And(newCount.EqC(15)), func() {
				p.Set(total, total.Add(Const(16, 1)))
			}).ElseIf(s1Valid, func() {
				p.Set(total, total.AddSat(Const(16, 2)))
			})
		})
	})
	return m
}
