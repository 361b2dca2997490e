package main

import (
	"fmt"
	"strings"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/cmd/nicgen/internal/rates"
)

// contractEvents are the connections of the cycle contract's events, offered
// back to back from cycle 1: two different connections, then the first
// again while it is in flight (the issue rule holds it, or a merging
// shell folds it), then two more.
var contractEvents = []uint32{0, 1, 0, 2, 3}

// contract is a block's port activity, cycle by cycle, on its golden cycle
// model (which nicgen equiv proves equal to the RTL): the events of
// contractEvents offered back to back, the result taken every cycle but
// two, so that a held result shows the back-pressure.
type contract struct {
	block                      string
	latency, depth             int
	sValid, sReady, mValid, mR []bool
	conn                       []int // the connection offered, -1 for none
	accepted                   []int // the event index accepted in the cycle, -1 for none
}

// cycleContract runs the golden cycle model of block. The result is held
// (m_result_ready low) in the two cycles after the first result appears;
// the run ends two cycles after the last result.
func cycleContract(cfg blocks.Config, block string, t rates.Timing) (*contract, error) {
	m, err := rates.GoldenCycleModel(cfg, block)
	if err != nil {
		return nil, err
	}
	c := &contract{block: block, latency: t.Latency, depth: t.Depth}
	sent, firstResult, lastResult, quiet := 0, -1, -1, 0
	limit := (len(contractEvents)+2)*(t.Latency+t.Depth+4) + 16
	for cyc := 0; cyc < limit; cyc++ {
		valid := cyc >= 1 && sent < len(contractEvents)
		conn := -1
		if valid {
			conn = int(contractEvents[sent])
		}
		ready := !(firstResult >= 0 && cyc > firstResult && cyc <= firstResult+2)
		sReady, mValid := m(valid, ready, uint32(max(conn, 0)))
		acc := -1
		if valid && sReady {
			acc = sent
			sent++
		}
		c.sValid, c.sReady, c.mValid, c.mR = append(c.sValid, valid), append(c.sReady, sReady), append(c.mValid, mValid), append(c.mR, ready)
		c.conn, c.accepted = append(c.conn, conn), append(c.accepted, acc)
		quiet++
		if mValid {
			quiet = 0
			if firstResult < 0 {
				firstResult = cyc
			}
			if ready {
				lastResult = cyc
			}
		}
		// every event in and no result for longer than an event takes:
		// the trace ends two cycles after the last result
		if sent == len(contractEvents) && lastResult >= 0 && quiet > t.Latency+t.Depth+4 {
			end := lastResult + 3
			c.sValid, c.sReady, c.mValid, c.mR = c.sValid[:end], c.sReady[:end], c.mValid[:end], c.mR[:end]
			c.conn, c.accepted = c.conn[:end], c.accepted[:end]
			return c, nil
		}
	}
	return nil, fmt.Errorf("%s: the contract's %d events did not drain in %d cycles", block, len(contractEvents), limit)
}

// wave is a WaveDrom wave of a one-bit signal: 1, 0, and . for a repeat.
func wave(bits []bool) string {
	var b strings.Builder
	for i, v := range bits {
		ch := byte('0')
		if v {
			ch = '1'
		}
		if i > 0 && bits[i-1] == v {
			ch = '.'
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// WaveDrom is the contract as a WaveDrom document (JSON, one signal per
// line): the clock, the event handshake with the connection of the event
// offered, the result handshake, and the cycles an event was accepted and
// a result taken.
func (c *contract) WaveDrom() string {
	n := len(c.sValid)
	var cw strings.Builder
	var data []string
	for i := 0; i < n; i++ {
		switch {
		case c.conn[i] < 0:
			cw.WriteByte('x')
		case i > 0 && c.conn[i-1] >= 0 && c.accepted[i-1] < 0:
			cw.WriteByte('.') // the same event, held
		default:
			cw.WriteByte('=')
			data = append(data, fmt.Sprintf("%q", fmt.Sprintf("c%d", c.conn[i])))
		}
	}
	acc := make([]bool, n)
	took := make([]bool, n)
	for i := range acc {
		acc[i] = c.accepted[i] >= 0
		took[i] = c.mValid[i] && c.mR[i]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{\"signal\": [\n")
	fmt.Fprintf(&b, "  {\"name\": \"clk\", \"wave\": \"p%s\"},\n", strings.Repeat(".", n-1))
	fmt.Fprintf(&b, "  {\"name\": \"s_event_valid\", \"wave\": %q},\n", wave(c.sValid))
	fmt.Fprintf(&b, "  {\"name\": \"s_event_conn\", \"wave\": %q, \"data\": [%s]},\n", cw.String(), strings.Join(data, ", "))
	fmt.Fprintf(&b, "  {\"name\": \"s_event_ready\", \"wave\": %q},\n", wave(c.sReady))
	fmt.Fprintf(&b, "  {\"name\": \"accepted\", \"wave\": %q},\n", wave(acc))
	b.WriteString("  {},\n")
	fmt.Fprintf(&b, "  {\"name\": \"m_result_valid\", \"wave\": %q},\n", wave(c.mValid))
	fmt.Fprintf(&b, "  {\"name\": \"m_result_ready\", \"wave\": %q},\n", wave(c.mR))
	fmt.Fprintf(&b, "  {\"name\": \"result taken\", \"wave\": %q}\n", wave(took))
	fmt.Fprintf(&b, "],\n \"head\": {\"text\": %q},\n", fmt.Sprintf("%s: depth %d, latency %d (golden cycle model)", c.block, c.depth, c.latency))
	fmt.Fprintf(&b, " \"foot\": {\"text\": \"events to connections %s from cycle 1; results held 2 cycles\", \"tick\": 0}}\n", connList())
	return b.String()
}

func connList() string {
	s := make([]string, len(contractEvents))
	for i, c := range contractEvents {
		s[i] = fmt.Sprint(c)
	}
	return strings.Join(s, ", ")
}
