package reps

import goldenreps "github.com/nicgen/nicgen/golden/reps"

// Golden carries the block's parameters over to its golden model, field by
// field from a zero value (the two packages declare their parameters
// independently; TestGoldenParamsComplete checks that every field is set).
func (p Params) Golden() goldenreps.Params {
	var g goldenreps.Params
	g.NumConn, g.Depth, g.ConnW = p.NumConn, p.Depth, p.ConnW
	g.N, g.EVW, g.HeadW, g.CountW, g.TimeW, g.ExploreW = p.N, p.EVW, p.HeadW, p.CountW, p.TimeW, p.ExploreW
	g.ExploreInit, g.ExploreAfterFreeze = p.ExploreInit, p.ExploreAfterFreeze
	g.FreezeTime, g.LFSRSeed, g.ClearOnFreezeExit = p.FreezeTime, p.LFSRSeed, p.ClearOnFreezeExit
	return g
}

// Golden carries reps_conf's parameters over to its golden model.
func (p ConfParams) Golden() goldenreps.ConfParams {
	var g goldenreps.ConfParams
	g.NumConn, g.Depth, g.ConnW = p.NumConn, p.Depth, p.ConnW
	g.NumEntropies, g.EVW, g.EntW, g.ExploreW = p.NumEntropies, p.EVW, p.EntW(), p.ExploreW()
	g.ExploreInit = p.ExploreInit
	return g
}
