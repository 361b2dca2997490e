package scenario

import (
	"github.com/nicgen/nicgen/blocks/block"
	bsrp "github.com/nicgen/nicgen/blocks/srp"
	"github.com/nicgen/nicgen/golden/netsim/hotspot"
)

// HotspotProtocol is the SRP and ECN protocol of a configuration as the
// hot spot (golden/netsim/hotspot) runs it: the parameters of its srp_tx,
// srp_rx, srp_ttw and ecn_ipd blocks.
type HotspotProtocol struct {
	tx  bsrp.TxParams
	rx  bsrp.RxParams
	ttw bsrp.TTWParams
	ipd bsrp.IPDParams
}

// NewHotspotProtocol reads the protocol of the configuration's srp_tx,
// srp_rx, srp_ttw and ecn_ipd blocks.
func NewHotspotProtocol(c block.Config) (*HotspotProtocol, error) {
	var p HotspotProtocol
	var err error
	if p.tx, err = block.ParamsOf[bsrp.TxParams](c, "srp_tx"); err != nil {
		return nil, err
	}
	if p.rx, err = block.ParamsOf[bsrp.RxParams](c, "srp_rx"); err != nil {
		return nil, err
	}
	if p.ttw, err = block.ParamsOf[bsrp.TTWParams](c, "srp_ttw"); err != nil {
		return nil, err
	}
	if p.ipd, err = block.ParamsOf[bsrp.IPDParams](c, "ecn_ipd"); err != nil {
		return nil, err
	}
	return &p, nil
}

// Apply gives cfg the protocol, in tables sized for cfg's network
// (hotspot.Config.Size): set the network first.
func (p *HotspotProtocol) Apply(cfg *hotspot.Config) {
	cfg.Tx, cfg.IPD, cfg.Epsilon = p.tx.Golden(), p.ipd.Golden(), p.rx.Epsilon
	cfg.Rx, cfg.TTW = p.rx.Golden(), p.ttw.Golden()
	cfg.Size()
}
