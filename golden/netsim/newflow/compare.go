package newflow

import "github.com/nicgen/nicgen/golden/onerc"

// Comparison is one weight's scene with 1RC and without it (a port that
// lets every packet through).
type Comparison struct {
	Weight  uint64  `json:"weight"`
	With    *Result `json:"with_1rc"`
	Without *Result `json:"without_1rc"`
}

// Compare runs c's scene with the new flow at weight, once with the
// golden models of the three 1RC blocks and once with a port without 1RC.
func Compare(c Config, weight uint64) (*Comparison, error) {
	c.Weight = weight
	cmp := &Comparison{Weight: weight}
	for _, with := range []bool{true, false} {
		b, err := GoldenBlocks(c)
		if err != nil {
			return nil, err
		}
		if !with {
			b.Port = plainPort{}
		}
		r, err := Run(c, b)
		if err != nil {
			return nil, err
		}
		if with {
			cmp.With = r
		} else {
			cmp.Without = r
		}
	}
	return cmp, nil
}

// plainPort is a port without 1RC: every packet goes through.
type plainPort struct{}

func (plainPort) StepTo(e *onerc.SwitchEvent, r *onerc.SwitchResult) {
	*r = onerc.SwitchResult{Conn: e.Conn, Kind: e.Kind, LetThrough: e.LetThrough, Hit: true}
}
