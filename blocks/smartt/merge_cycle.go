package smartt

import (
	"github.com/nicgen/nicgen/blocks/block"
	"github.com/nicgen/nicgen/blocks/connpipe"
	gsmartt "github.com/nicgen/nicgen/golden/smartt"
)

// cycleModel is smartt's and nscc's golden cycle-level model on fields
// (block.Desc.Cycle) for a shell with waiting slots (merge_slots > 0),
// whose results depend on timing: with merge_acks the ACKs (and with
// merge_nacks the NACKs) of a connection in flight fold together, and
// m_result_members counts them; without, events of a busy connection wait
// in the slots while others pass. It is GoldenPipeline's shell. The plain
// shell's results do not depend on timing (ok false): the golden model in
// golden/pipe's plain shell gives them.
func cycleModel(p Params) (block.CycleModel, bool, error) {
	if p.MergeSlots == 0 {
		return nil, false, nil
	}
	m, err := gsmartt.NewModel(p.Golden())
	if err != nil {
		return nil, false, err
	}
	c := &mergeCycle{p: GoldenPipeline(p, m)}
	for _, f := range resultFields {
		c.outputs = append(c.outputs, "m_result_"+f)
	}
	c.outputs = append(c.outputs, "m_result_"+connpipe.MembersField)
	return c, true, nil
}

// mergeCycle runs a merging (or waiting) shell's golden pipeline on
// fields: eventFields in, the result fields and the member count out.
type mergeCycle struct {
	p       *gsmartt.Pipeline
	outputs []string
}

func (c *mergeCycle) Fields() ([]string, []string) { return eventFields, c.outputs }

func (c *mergeCycle) Cycle(sValid, mReady bool, in, out []uint64) (bool, bool) {
	// the event is written in place (pipe.Pipeline.Input)
	e := c.p.Input()
	e.Conn, e.Kind, e.Size, e.ECN = uint32(in[0]), gsmartt.Kind(in[1]), uint32(in[2]), in[3] == 1
	e.RTT, e.Unacked, e.Now = uint32(in[4]), uint32(in[5]), in[6]
	sReady, mValid, r := c.p.CyclePorts(sValid, mReady)
	// a zero result while m_result_valid is 0
	out[0], out[1], out[2], out[3] = uint64(r.Conn), uint64(r.Kind), uint64(r.Cwnd), uint64(r.Case)
	out[4], out[5], out[6], out[7] = block.Bit(r.QA), block.Bit(r.Fast), block.Bit(r.Error), uint64(r.Members)
	return sReady, mValid
}

func (c *mergeCycle) Reset() { c.p.Reset() }
