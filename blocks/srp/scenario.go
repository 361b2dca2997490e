package srp

import "github.com/nicgen/nicgen/golden/netsim/hotspot"

// The hot spot of `nicgen scenario hotspot` runs the configured protocol:
// each of srp_tx, srp_rx, srp_ttw and ecn_ipd gives the scene its part
// (package scenario finds them through these methods).

// Hotspot gives the scene srp_tx's parameters.
func (p TxParams) Hotspot(cfg *hotspot.Config) { cfg.Tx = p.Golden() }

// Hotspot gives the scene srp_rx's parameters and its slot's margin.
func (p RxParams) Hotspot(cfg *hotspot.Config) { cfg.Rx, cfg.Epsilon = p.Golden(), p.Epsilon }

// Hotspot gives the scene srp_ttw's parameters.
func (p TTWParams) Hotspot(cfg *hotspot.Config) { cfg.TTW = p.Golden() }

// Hotspot gives the scene ecn_ipd's parameters.
func (p IPDParams) Hotspot(cfg *hotspot.Config) { cfg.IPD = p.Golden() }
