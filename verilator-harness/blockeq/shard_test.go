package blockeq

import (
	"reflect"
	"testing"
)

func TestShards(t *testing.T) {
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

func TestMerge(t *testing.T) {
	recs := []RunRecord{
		{Block: "reps", Profile: "mixed", Shard: Shard{0, 3}, Cycles: 10, Passed: true, Coverage: map[string]int64{"ack": 2}},
		{Block: "reps", Profile: "mixed", Shard: Shard{2, 3}, Cycles: 12, Passed: false, Error: "mismatch", Coverage: map[string]int64{"ack": 3}},
		{Block: "nscc", Profile: "mixed", Shard: Shard{0, 1}, Cycles: 5, Passed: true},
	}
	got, err := Merge(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Block != "nscc" || got[1].Cycles != 22 || !reflect.DeepEqual(got[1].Missing, []int{1}) ||
		len(got[1].Failed) != 1 || got[1].Coverage["ack"] != 5 {
		t.Errorf("merge: %+v", got)
	}
	if _, err := Merge(append(recs, recs[0])); err == nil {
		t.Errorf("a shard reported twice was accepted")
	}
}
