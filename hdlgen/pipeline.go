package hdlgen

import "fmt"

// Pipeline places a datapath over clock stages. The block author declares
// the stage of each source signal (Source) and says where a stage ends
// (Cut); every operation belongs to the latest stage of its operands, and an
// operand of an earlier stage is carried to it through free-running
// registers named s<stage>_<name>_reg, added once per value and stage. So
// the author only places the cuts; the balancing registers that keep every
// operand of an operation in one stage are the DSL's job, and the datapath
// computes exactly what it computed without cuts, some cycles later.
//
// Constants, parameters and signals not declared with Source (global state
// such as an LFSR) belong to no stage: they are read wherever they are used.
// An instance belongs to the latest stage of its inputs; its inputs of
// earlier stages are carried to it, and its outputs are of that stage.
// Pipeline registers have no reset and no enable: the shell qualifies them
// with valid bits of its own and never stalls a stage after the first.
type Pipeline struct {
	m      *Module
	stage  map[*node]int
	delays map[delayKey]*node
	lazy   map[*node]func(s int) Value
	insts  map[*Signal]*Instance
	wires  map[*Signal]*assign
	max    int
	// automatic placement (Auto): an operation whose estimated arrival
	// would pass budget ns is moved to the next stage, up to stage limit
	budget float64
	limit  int
	arr    map[*node]float64
	mods   map[*Module]float64
	// CountOnly: operands are carried by stand-ins, not registers
	counting bool
	standIn  *Signal
}

// Auto lets the pipeline place stage boundaries itself: every operation
// has an estimated delay (a coarse FPGA model: a LUT level with its
// routing, a carry chain by width, a multiplier), and an operation whose
// arrival in its stage would pass budgetNs starts the next stage instead,
// its operands carried there, as long as that stage is at most limit.
// Explicit cuts still apply. Only for datapaths whose global state, if
// any, is read and written in one explicitly placed stage: an automatic
// boundary may fall anywhere.
func (p *Pipeline) Auto(budgetNs float64, limit int) {
	p.budget, p.limit = budgetNs, limit
	p.arr, p.mods = map[*node]float64{}, map[*Module]float64{}
}

// CountOnly makes the pipeline follow stages without building the
// registers that carry values between them (balancing and cut registers):
// a value wanted in a later stage is a stand-in of that stage. Stage, Last,
// At, Cut and the placement errors answer as they would otherwise, so a
// build that only wants to know how many stages its cuts reach (a block's
// needed pipeline depth) skips most of its work. The module is then for
// that count alone: Elaborate refuses it.
func (p *Pipeline) CountOnly() {
	p.counting = true
	p.standIn = &Signal{name: "stage_stand_in", kind: kindReg}
	p.m.counted = true
}

type delayKey struct {
	n     *node
	stage int
}

// Pipeline starts the placement of a datapath of m over stages.
func (m *Module) Pipeline() *Pipeline {
	p := &Pipeline{m: m, stage: map[*node]int{}, delays: map[delayKey]*node{}, lazy: map[*node]func(int) Value{}, insts: map[*Signal]*Instance{}, wires: map[*Signal]*assign{}}
	return p
}

// Source declares that v (a register or port the shell provides) holds its
// value in stage s.
func (p *Pipeline) Source(v Value, s int) {
	p.stage[v.node()] = s
	if s > p.max {
		p.max = s
	}
}

// Alias says that v, of an earlier stage, is available in stage s as a:
// the pipeline uses a instead of carrying v there. A valid-qualified
// signal (an event fires) is recomputed from each stage's reset valid bit
// this way, so that no stage after a reset sees a stale copy of it.
func (p *Pipeline) Alias(v Value, s int, a Value) {
	p.delays[delayKey{v.node(), s}] = a.node()
	p.stage[a.node()] = s
}

// AliasFunc is Alias made on demand: when v is wanted in a later stage s,
// f(s) gives the value to use there. Only the stages that use v get the
// logic (and the registers) that f builds.
func (p *Pipeline) AliasFunc(v Value, f func(s int) Value) { p.lazy[v.node()] = f }

// Stage is the stage v belongs to (balancing its operands on the way), or
// -1 when it belongs to none (a constant).
func (p *Pipeline) Stage(v Value) int { return p.balance(v.node()) }

// Last is the latest stage a value has reached so far.
func (p *Pipeline) Last() int { return p.max }

// Cut ends the stage of v: the value is registered and read in the next
// stage. name names the register (s<stage>_<name>_reg).
func (p *Pipeline) Cut(name string, v Value) Expr {
	s := p.balance(v.node())
	if s < 0 {
		p.m.errorf(callerLoc(), "pipeline cut %s of a value of no stage (a constant)", name)
		return Expr{v.node()}
	}
	return Expr{p.delay(v.node(), s+1, name)}
}

// At is v in stage s (s at least v's stage): it is carried there through
// registers when it is of an earlier stage.
func (p *Pipeline) At(v Value, s int) Expr {
	vs := p.balance(v.node())
	if vs > s {
		p.m.errorf(callerLoc(), "pipeline: a value of stage %d is wanted in earlier stage %d", vs, s)
		return Expr{v.node()}
	}
	if vs < 0 {
		return Expr{v.node()}
	}
	return Expr{p.delay(v.node(), s, "")}
}

// balance computes the stage of n and makes every operand of every node
// under it a node of that node's stage.
func (p *Pipeline) balance(n *node) int {
	if s, ok := p.stage[n]; ok {
		return s
	}
	p.stage[n] = -1 // a combinational loop reaches n again: the loops pass reports it
	s := -1
	switch {
	case n.op == opSig && n.sig.kind == kindInstO:
		in := p.instanceOf(n.sig)
		if in != nil {
			for _, port := range in.mod.Ports() {
				if a := in.inputs[port.name]; a != nil {
					s = max(s, p.balance(a))
				}
			}
			if p.budget > 0 && s >= 0 {
				var args []*node
				for _, port := range in.mod.Ports() {
					if a := in.inputs[port.name]; a != nil {
						args = append(args, a)
					}
				}
				s = p.place(n, s, args, p.moduleDelay(in.mod))
			}
			if s >= 0 {
				for _, port := range in.mod.Ports() {
					if a := in.inputs[port.name]; a != nil && p.stage[a] >= 0 && p.stage[a] < s {
						in.inputs[port.name] = p.delay(a, s, in.Name+"_"+port.name)
					}
				}
			}
		}
	case n.op == opSig && n.sig.kind == kindWire:
		if a := p.wireOf(n.sig); a != nil {
			s = p.balance(a.value)
			if p.budget > 0 {
				p.arr[n] = p.arr[a.value]
			}
		}
	default:
		for _, a := range n.args {
			s = max(s, p.balance(a))
		}
		if p.budget > 0 && s >= 0 {
			s = p.place(n, s, n.args, opDelay(n))
		}
		for i, a := range n.args {
			if as := p.stage[a]; as >= 0 && as < s {
				n.args[i] = p.delay(a, s, "")
			}
		}
	}
	p.stage[n] = s
	p.max = max(p.max, s)
	return s
}

func (p *Pipeline) instanceOf(s *Signal) *Instance {
	if in, ok := p.insts[s]; ok {
		return in
	}
	for _, in := range p.m.insts {
		for _, o := range in.outs {
			p.insts[o] = in
		}
	}
	return p.insts[s]
}

func (p *Pipeline) wireOf(s *Signal) *assign {
	if a, ok := p.wires[s]; ok {
		return a
	}
	for _, a := range p.m.assigns {
		if a.target.kind == kindWire {
			p.wires[a.target] = a
		}
	}
	return p.wires[s]
}

// delay is n (of stage p.stage[n]) carried to stage s through registers.
func (p *Pipeline) delay(n *node, s int, name string) *node {
	from := p.stage[n]
	if from >= s {
		return n
	}
	if d, ok := p.delays[delayKey{n, s}]; ok {
		return d
	}
	if f, ok := p.lazy[n]; ok {
		a := f(s).node()
		p.delays[delayKey{n, s}] = a
		p.stage[a] = s
		return a
	}
	if p.counting {
		// a value of stage s standing for n there: no register, no name
		out := &node{op: opSig, width: n.width, signed: n.signed, sig: p.standIn, loc: n.loc}
		p.stage[out] = s
		p.delays[delayKey{n, s}] = out
		p.max = max(p.max, s)
		return out
	}
	prev := p.delay(n, s-1, name)
	if name == "" {
		name = n.name
		if name == "" && n.op == opSig {
			name = n.sig.name
		}
		if name == "" {
			name = "t"
		}
	}
	base := fmt.Sprintf("s%d_%s", s, trimStage(name))
	regName := base
	for i := 2; p.m.byName[regName+"_reg"] != nil; i++ {
		regName = fmt.Sprintf("%s_%d", base, i)
	}
	r := p.m.regAt(n.loc, regName, n.width, fmt.Sprintf("stage %d copy of %s", s, trimStage(name)), NoReset())
	p.m.assigns = append(p.m.assigns, &assign{target: r.Next, value: prev, loc: n.loc})
	if prev == n && dspCandidate(n) {
		r.dsp = n
	}
	out := r.Signal.Expr.n
	if n.signed {
		out = Expr{out}.AsSigned().n
	}
	p.stage[out] = s
	p.delays[delayKey{n, s}] = out
	p.max = max(p.max, s)
	return out
}

// dspCandidate reports whether n is an unsigned product: a pipeline
// register taking it directly may be a multiplier's output register
// (dspRegs decides, at emission, from the operands' significant bits).
func dspCandidate(n *node) bool {
	return n.op == opMul && !n.signed && len(n.args) == 2 && !n.args[0].signed && !n.args[1].signed
}

// trimStage drops a leading s<digits>_ and trailing _reg so that a value
// carried over several stages keeps one readable base name.
func trimStage(name string) string {
	if len(name) > 4 && name[len(name)-4:] == "_reg" {
		name = name[:len(name)-4]
	}
	if len(name) > 2 && name[0] == 's' {
		i := 1
		for i < len(name) && name[i] >= '0' && name[i] <= '9' {
			i++
		}
		if i > 1 && i < len(name) && name[i] == '_' {
			name = name[i+1:]
		}
	}
	return name
}

// Within runs build, which adds a datapath to the module, and then
// balances everything build added: continuous assignments, processes,
// instances and properties. Values that only a process or a property reads
// (a global register's update, an assertion) are thus placed as carefully
// as the values the shell reads.
func (p *Pipeline) Within(build func()) {
	m := p.m
	na, np, ni, nr := len(m.assigns), len(m.procs), len(m.insts), len(m.props)
	build()
	var roots []*node
	for _, a := range m.assigns[na:] {
		roots = append(roots, a.value)
	}
	for _, pr := range m.procs[np:] {
		var walk func(list []*stmt)
		walk = func(list []*stmt) {
			for _, s := range list {
				switch s.kind {
				case stSet:
					roots = append(roots, s.value)
				case stIf:
					roots = append(roots, s.cond)
					walk(s.then)
					walk(s.els)
				}
			}
		}
		walk(pr.body)
	}
	for _, in := range m.insts[ni:] {
		for _, o := range in.outs {
			roots = append(roots, o.Expr.n)
		}
		s := -1
		for _, port := range in.mod.Ports() {
			if a := in.inputs[port.name]; a != nil {
				s = max(s, p.balance(a))
			}
		}
		for _, port := range in.mod.Ports() {
			if a := in.inputs[port.name]; a != nil && s >= 0 && p.stage[a] >= 0 && p.stage[a] < s {
				in.inputs[port.name] = p.delay(a, s, in.Name+"_"+port.name)
			}
		}
	}
	for _, r := range m.props[nr:] {
		roots = append(roots, r.cond)
	}
	for _, n := range roots {
		p.balance(n)
	}
	// a process whose statements mix stages: each statement's values are
	// balanced on their own, so a condition and the value it guards must
	// agree, which is checked here
	for _, pr := range m.procs[np:] {
		p.checkProcess(pr)
	}
}

// checkProcess reports a process whose conditions and values are of
// different stages: they would describe one event's update with parts of
// different events.
func (p *Pipeline) checkProcess(pr *Process) {
	s := -1
	var first Loc
	var walk func(list []*stmt)
	walk = func(list []*stmt) {
		for _, st := range list {
			var ns []*node
			switch st.kind {
			case stSet:
				ns = []*node{st.value}
			case stIf:
				ns = []*node{st.cond}
			}
			for _, n := range ns {
				ss := p.stage[n]
				if ss < 0 {
					continue
				}
				if s < 0 {
					s, first = ss, st.loc
				} else if ss != s {
					p.m.errorf(st.loc, "process %s mixes pipeline stages %d (at %s) and %d: align the values with Pipeline.At", pr.Name, s, first, ss)
					return
				}
			}
			walk(st.then)
			walk(st.els)
		}
	}
	walk(pr.body)
}

// place is the stage of n, whose operands are of stage s at most and which
// takes d ns: s, or s+1 when its arrival in s would pass the budget.
func (p *Pipeline) place(n *node, s int, args []*node, d float64) int {
	in := 0.0
	for _, a := range args {
		if p.stage[a] == s {
			in = max(in, p.arr[a])
		}
	}
	if in > 0 && in+d > p.budget && s+1 <= p.limit {
		s, in = s+1, 0
	}
	p.arr[n] = in + d
	return s
}

// levels is the number of 4-input LUT levels that reduce n inputs.
func levels(n int) float64 {
	l := 0.0
	for c := 1; c < n; c *= 4 {
		l++
	}
	return max(l, 1)
}

// lutNs is one LUT level with its routing.
const lutNs = 0.75

// opDelay is the estimated delay of one operation, ns.
func opDelay(n *node) float64 {
	w := n.width
	if len(n.args) > 0 {
		w = max(w, n.args[0].width)
	}
	switch n.op {
	case opConst, opSig, opCast, opSlice, opConcat, opShlC, opShrC, opNot:
		return 0
	case opAnd, opOr, opXor, opMux:
		return lutNs
	case opRedOr, opRedAnd:
		return lutNs * levels(n.args[0].width)
	case opEq, opNe:
		return lutNs * (1 + levels((n.args[0].width+1)/2))
	case opAdd, opSub, opLt, opLe:
		return 0.9 + 0.05*float64(w)
	case opMul:
		if n.args[0].width > 18 || n.args[1].width > 18 {
			return 7
		}
		return 5
	case opShlV, opShrV:
		return lutNs * levels(w)
	case opIndex:
		return lutNs * levels(len(n.args)-1)
	case opROM:
		return lutNs * (levels(len(n.rom)) + 1)
	}
	return lutNs
}

// moduleDelay is the estimated longest path of a combinational submodule
// from its inputs to its outputs.
func (p *Pipeline) moduleDelay(m *Module) float64 {
	if d, ok := p.mods[m]; ok {
		return d
	}
	arr := map[*node]float64{}
	wires := map[*Signal]*node{}
	for _, a := range m.assigns {
		wires[a.target] = a.value
	}
	var at func(n *node) float64
	at = func(n *node) float64 {
		if v, ok := arr[n]; ok {
			return v
		}
		arr[n] = 0
		v := 0.0
		switch {
		case n.op == opSig && n.sig.kind == kindWire:
			if w := wires[n.sig]; w != nil {
				v = at(w)
			}
		case n.op == opSig:
		default:
			for _, a := range n.args {
				v = max(v, at(a))
			}
			v += opDelay(n)
		}
		arr[n] = v
		return v
	}
	d := 0.0
	for _, a := range m.assigns {
		if a.target.kind == kindOutput {
			d = max(d, at(a.value))
		}
	}
	p.mods[m] = d
	return d
}
