package smartt

import gsmartt "github.com/nicgen/nicgen/golden/smartt"

// Golden carries the block's parameters over to its golden model, field by
// field from a zero value (the two packages declare their parameters
// independently; TestGoldenParamsComplete checks that every field is set).
func (p Params) Golden() gsmartt.Params {
	var g gsmartt.Params
	g.Variant = gsmartt.Conf
	if p.Variant == NSCC {
		g.Variant = gsmartt.NSCC
	}
	g.Network = gsmartt.Network{LinkGbps: p.Net.LinkGbps, MTU: p.Net.MTU, BrttNs: p.Net.BrttNs}
	g.Depth = p.Depth
	g.NumConn, g.ConnW, g.SizeW, g.RttW, g.ByteW, g.TimeW = p.NumConn, p.ConnW, p.SizeW, p.RttW, p.ByteW, p.TimeW
	g.StampShift, g.StampW, g.ByteShift, g.IncW, g.AvgW = p.StampShift, p.StampW, p.ByteShift, p.IncW, p.AvgW
	g.F, g.K, g.WtdShift, g.AvgShift, g.FiTolNs, g.InitCwnd = p.F, p.K, p.WtdShift, p.AvgShift, p.FiTolNs, p.InitCwnd
	g.TimeoutsReplaceTrims, g.ClampOnEarlyReturn, g.AdjustPeriod, g.DelayQA = p.TimeoutsReplaceTrims, p.ClampOnEarlyReturn, p.AdjustPeriod, p.DelayQA
	g.TrimsCountAsAcked, g.ZeroStampExpired, g.IgnorePhaseTimeouts = p.TrimsCountAsAcked, p.ZeroStampExpired, p.IgnorePhaseTimeouts
	return g
}
