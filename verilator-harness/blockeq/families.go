package blockeq

import (
	"github.com/nicgen/nicgen/blocks"
	bsmartt "github.com/nicgen/nicgen/blocks/smartt"
	harness "github.com/nicgen/nicgen/verilator-harness"
)

// The equivalence benches of the SMaRTT family (smartt, nscc).
func init() {
	for _, v := range []bsmartt.Variant{bsmartt.Conf, bsmartt.NSCC} {
		RegisterFamily(v.String(), Family{
			Bench: func(cfg blocks.Config, hd harness.Design, profile string, seed uint64) (*Bench, error) {
				p, err := bsmartt.Of(cfg, v)
				if err != nil {
					return nil, err
				}
				cov := NewSmarttCoverageOf(p)
				ref, err := SmarttReference(hd, p, cov)
				stim := NewSmarttStimulus(hd, applySmartt(DefaultSmarttProfile(p.NumConn, uint64(p.Net.MTU), uint64(p.Net.BrttNs)), profile), seed)
				return &Bench{Ref: ref, Stim: stim, Coverage: cov}, err
			},
			Vectors: func(cfg blocks.Config, block string, ports map[string]int, n int, seed uint64) (*VectorSet, error) {
				p, err := bsmartt.Of(cfg, v)
				if err != nil {
					return nil, err
				}
				return smarttVectors(block, p, ports, n, seed)
			},
		})
	}
}
