package blockeq

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Shard is one part of a long equivalence campaign: shard i of n runs its
// share of the cycles with its own seed, so any CI engine can spread a
// campaign over machines and merge the records afterwards.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard reads "i/n" with 0 <= i < n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 0 <= i < n, e.g. 0/4", s)
	}
	return Shard{Index: i, Count: n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Cycles is this shard's share of total: an equal part, the remainder to
// the last shard.
func (s Shard) Cycles(total int64) int64 {
	part := total / int64(s.Count)
	if s.Index == s.Count-1 {
		return total - part*int64(s.Count-1)
	}
	return part
}

// Seed derives the shard's seed from the campaign seed; shard 0 of 1 keeps
// the campaign seed, so an unsharded run and its reproduction agree.
func (s Shard) Seed(base uint64) uint64 {
	if s.Count == 1 {
		return base
	}
	return base*1_000_003 + uint64(s.Index) + 1
}

// RunRecord is what one shard reports, as JSON.
type RunRecord struct {
	Block        string           `json:"block"`
	Profile      string           `json:"profile"`
	Shard        Shard            `json:"shard"`
	Seed         uint64           `json:"seed"`
	Cycles       int64            `json:"cycles"`
	CyclesPerSec float64          `json:"cycles_per_sec"`
	Passed       bool             `json:"passed"`
	Error        string           `json:"error,omitempty"`
	Coverage     map[string]int64 `json:"coverage"`
}

// Campaign is the merge of the records of one block and profile.
type Campaign struct {
	Block, Profile string
	Shards         int
	Cycles         int64
	Failed         []RunRecord
	Missing        []int // shard indexes with no record
	Coverage       map[string]int64
}

// Merge groups records by block and profile and checks that every shard
// reported exactly once.
func Merge(recs []RunRecord) ([]Campaign, error) {
	type key struct{ block, profile string }
	groups := map[key][]RunRecord{}
	for _, r := range recs {
		k := key{r.Block, r.Profile}
		groups[k] = append(groups[k], r)
	}
	var keys []key
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].block != keys[j].block {
			return keys[i].block < keys[j].block
		}
		return keys[i].profile < keys[j].profile
	})
	var out []Campaign
	for _, k := range keys {
		g := groups[k]
		c := Campaign{Block: k.block, Profile: k.profile, Shards: g[0].Shard.Count, Coverage: map[string]int64{}}
		seen := map[int]bool{}
		for _, r := range g {
			if r.Shard.Count != c.Shards {
				return nil, fmt.Errorf("%s/%s: shard %s belongs to a campaign of %d shards, others to %d", k.block, k.profile, r.Shard, r.Shard.Count, c.Shards)
			}
			if seen[r.Shard.Index] {
				return nil, fmt.Errorf("%s/%s: shard %s reported twice", k.block, k.profile, r.Shard)
			}
			seen[r.Shard.Index] = true
			c.Cycles += r.Cycles
			if !r.Passed {
				c.Failed = append(c.Failed, r)
			}
			for name, n := range r.Coverage {
				c.Coverage[name] += n
			}
		}
		for i := 0; i < c.Shards; i++ {
			if !seen[i] {
				c.Missing = append(c.Missing, i)
			}
		}
		out = append(out, c)
	}
	return out, nil
}
