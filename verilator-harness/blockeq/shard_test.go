package blockeq

import (
	"reflect"
	"strings"
	"testing"
)

func TestShards(t *testing.T) {
	t.Parallel()
	var total int64
	seeds := map[uint64]bool{}
	for i := 0; i < 7; i++ {
		s, err := ParseShard(string(rune('0'+i)) + "/7")
		if err != nil {
			t.Fatal(err)
		}
		total += s.Cycles(100_000_000)
		seeds[s.Seed(1)] = true
	}
	if total != 100_000_000 || len(seeds) != 7 {
		t.Errorf("7 shards cover %d cycles with %d distinct seeds", total, len(seeds))
	}
	if s, _ := ParseShard("0/1"); s.Seed(42) != 42 || s.Cycles(10) != 10 {
		t.Errorf("a single shard must keep the campaign seed and cycles")
	}
	for _, bad := range []string{"", "1", "4/4", "-1/3", "a/b", "1/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// rec is a record of a campaign of 30 cycles, seed 5, with every shard's
// seed and share as equiv gives them.
func rec(block string, sh Shard, cycles int64, passed bool, cov map[string]int64) RunRecord {
	return RunRecord{Version: "0.1.0", Config: "abc", CampaignSeed: 5, CampaignCycles: 30, Block: block, Profile: "mixed",
		Shard: sh, Seed: sh.Seed(5), Cycles: cycles, Passed: passed, Coverage: cov}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	failed := rec("reps", Shard{2, 3}, 7, false, map[string]int64{"ack": 3})
	failed.Error = "mismatch"
	recs := []RunRecord{
		rec("reps", Shard{0, 3}, 10, true, map[string]int64{"ack": 2}),
		failed,
		rec("nscc", Shard{0, 1}, 30, true, nil),
	}
	got, err := Merge(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Block != "nscc" || got[1].Cycles != 17 || !reflect.DeepEqual(got[1].Missing, []int{1}) ||
		len(got[1].Failed) != 1 || got[1].Coverage["ack"] != 5 {
		t.Errorf("merge: %+v", got)
	}
	if _, err := Merge(append(recs, recs[0])); err == nil {
		t.Errorf("a shard reported twice was accepted")
	}
}

// A case is uncovered when every shard missed it: a case one shard
// reached is covered, whatever the others missed.
func TestMergeCoverage(t *testing.T) {
	t.Parallel()
	a := rec("reps", Shard{0, 2}, 15, true, map[string]int64{"ack": 1, "nack": 0, "open": 0})
	b := rec("reps", Shard{1, 2}, 15, true, map[string]int64{"ack": 0, "nack": 2, "open": 0})
	a.CoverageMissing, b.CoverageMissing = []string{"nack", "open"}, []string{"ack", "open"}
	got, err := Merge([]RunRecord{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got[0].Uncovered, []string{"open"}) {
		t.Errorf("uncovered %v, want [open]", got[0].Uncovered)
	}
	a.CoverageMissing = []string{"nack"}
	if got, _ := Merge([]RunRecord{a, b}); len(got[0].Uncovered) != 0 {
		t.Errorf("uncovered %v, want none", got[0].Uncovered)
	}
}

// Records of different campaigns, and records no run can write, are
// refused: merge never says "passed" for them.
func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	good := rec("reps", Shard{0, 2}, 15, true, nil)
	other := func(f func(r *RunRecord)) RunRecord {
		r := rec("reps", Shard{1, 2}, 15, true, nil)
		f(&r)
		return r
	}
	for _, c := range []struct {
		name string
		r    RunRecord
		want string
	}{
		{"another configuration", other(func(r *RunRecord) { r.Config = "def" }), "two configurations"},
		{"another version", other(func(r *RunRecord) { r.Version = "9.9.9" }), "one campaign is one version"},
		{"another seed", other(func(r *RunRecord) { r.CampaignSeed, r.Seed = 6, r.Shard.Seed(6) }), "two campaigns"},
		{"negative cycles", other(func(r *RunRecord) { r.Cycles, r.Passed = -10, false }), "-10 cycles"},
		{"passed early", other(func(r *RunRecord) { r.Cycles = 3 }), "passed after 3 of its 15 cycles"},
		{"forged seed", other(func(r *RunRecord) { r.Seed = 77 }), "seed 77 is not shard"},
		{"no identity", other(func(r *RunRecord) { r.Version, r.Config = "", "" }), "no campaign identity"},
		{"no such shard", other(func(r *RunRecord) { r.Shard = Shard{2, 2} }), "does not exist"},
		{"negative coverage", other(func(r *RunRecord) { r.Coverage = map[string]int64{"ack": -1} }), `coverage "ack" is -1`},
		{"no such block", other(func(r *RunRecord) { r.Block = "evil" }), `block "evil" is no block of nicgen`},
		{"no such profile", other(func(r *RunRecord) { r.Profile = "nonsense" }), `profile "nonsense" is no profile`},
	} {
		if _, err := Merge([]RunRecord{good, c.r}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
