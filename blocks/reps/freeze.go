package reps

import "github.com/nicgen/nicgen/hdlgen"

// FreezeController is the module reps_freeze: the freezing-mode state
// machine of S4 Section 3.2 as a combinational next-state function.
//
// Exit is lazy: on any event of a frozen connection whose exit time has
// passed (serial-number comparison, so `now` may wrap) the connection leaves
// freezing mode and the explore counter is reloaded so that REPS explores
// again (S4:L63). Then a timeout freezes the connection when it is not frozen
// and not exploring (the failure heuristic of S4:L52 and both public
// reconstructions), until now + freeze_time.
func FreezeController(p Params) *hdlgen.Module {
	m := hdlgen.NewModule("reps_freeze", "REPS freezing-mode controller (S4 Section 3.2).\nCombinational: current state and event in, next state out.")
	m.Note("TimeW = %d, ExploreW = %d", p.TimeW, p.ExploreW)
	m.Group("Current state")
	curFrozen := m.Input("cur_frozen", 1, "isFreezingMode")
	curExit := m.Input("cur_exit", p.TimeW, "exitFreezingMode timestamp")
	curExplore := m.Input("cur_explore", p.ExploreW, "exploreCounter")
	m.Group("Event and settings")
	now := m.Input("now", p.TimeW, "timestamp of the event")
	timeout := m.Input("timeout", 1, "the event is a timeout (failure detection)")
	freezeTime := m.Input("freeze_time", p.TimeW, "freezing duration in now ticks (below 2^(TimeW-1))")
	reload := m.Input("explore_reload", p.ExploreW, "explore counter after leaving freezing mode")
	m.Group("Next state")
	nxtFrozen := m.Output("nxt_frozen", 1, "isFreezingMode after the event")
	nxtExit := m.Output("nxt_exit", p.TimeW, "exitFreezingMode after the event")
	nxtExplore := m.Output("nxt_explore", p.ExploreW, "exploreCounter after the event (before a send uses it)")
	var exiting *hdlgen.Signal
	if p.ClearOnFreezeExit {
		exiting = m.Output("exiting", 1, "the connection left freezing mode on this event")
	}

	leave := curFrozen.And(hdlgen.After(now, curExit)).Named("leave")
	explore1 := hdlgen.Mux(leave, reload, curExplore).Named("explore1")
	// a timeout freezes a connection that is not frozen and not exploring
	// after the exit: leaving, when the reload is 0; staying, when it is
	// not frozen and its counter is 0. leave, which waits for the
	// comparison's carry chain, selects last: with a run-time reload its
	// zero test would otherwise lie between leave and the exit's
	// multiplexers (uet_cc_ctl placed at 118.1 MHz on seed 1 with that
	// path the critical one, 8.47 ns)
	enterLeaving := timeout.And(reload.IsZero()).Named("enter_leaving")
	enterStaying := timeout.And(curFrozen.Not()).And(curExplore.IsZero()).Named("enter_staying")
	sum := now.Add(freezeTime).Named("exit_new")
	m.Assign(nxtFrozen, hdlgen.Mux(leave, enterLeaving, curFrozen.Or(enterStaying)))
	m.Assign(nxtExit, hdlgen.Mux(leave, hdlgen.Mux(enterLeaving, sum, curExit), hdlgen.Mux(enterStaying, sum, curExit)))
	m.Assign(nxtExplore, explore1)
	if exiting != nil {
		m.Assign(exiting, leave)
	}
	return m
}
