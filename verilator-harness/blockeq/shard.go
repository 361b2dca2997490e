package blockeq

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/hdlgen"
	harness "github.com/nicgen/nicgen/verilator-harness"
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

// RunRecord is what one shard reports, as JSON. Version, Config,
// CampaignSeed and CampaignCycles identify the campaign: Merge refuses to
// mix records of different campaigns.
type RunRecord struct {
	Version        string           `json:"nicgen_version"`
	Config         string           `json:"config_sha256"` // of the configuration file's bytes (the embedded one's too)
	CampaignSeed   uint64           `json:"campaign_seed"`
	CampaignCycles int64            `json:"campaign_cycles"`
	Block          string           `json:"block"`
	Profile        string           `json:"profile"`
	Shard          Shard            `json:"shard"`
	Seed           uint64           `json:"seed"`
	Cycles         int64            `json:"cycles"`
	CyclesPerSec   float64          `json:"cycles_per_sec"`
	Passed         bool             `json:"passed"`
	Error          string           `json:"error,omitempty"`
	Coverage       map[string]int64 `json:"coverage"`
	// CoverageMissing is the cases the run expected and never reached
	// (mixed profile); a campaign of several shards reaches a case when
	// any shard does (Merge)
	CoverageMissing []string `json:"coverage_missing,omitempty"`
	// Broken names the broken variant the run checked instead of the
	// block (equiv --break): such a record never passes a campaign
	Broken string `json:"broken,omitempty"`
}

// Campaign is the merge of the records of one block and profile.
type Campaign struct {
	Block, Profile string
	// the identity every record of the campaign carries
	Version, Config string
	Seed            uint64
	Shards          int
	Cycles          int64
	Failed          []RunRecord
	Missing         []int // shard indexes with no record
	Coverage        map[string]int64
	// Uncovered is the cases that every record expected and none reached
	Uncovered []string
}

// check reports a record that no run of nicgen equiv can write.
func (r RunRecord) check() error {
	switch {
	case r.Version == "" || r.Config == "":
		return fmt.Errorf("no campaign identity (nicgen_version, config_sha256): not written by this nicgen equiv")
	case r.Block == "" || r.Profile == "":
		return fmt.Errorf("no block or profile")
	case !slices.Contains(blocks.Names(), r.Block):
		return fmt.Errorf("block %q is no block of nicgen (blocks: %v)", r.Block, blocks.Names())
	case !slices.Contains(ProfileNames(), r.Profile):
		return fmt.Errorf("profile %q is no profile of nicgen equiv (profiles: %v)", r.Profile, ProfileNames())
	case r.Shard.Count < 1 || r.Shard.Index < 0 || r.Shard.Index >= r.Shard.Count:
		return fmt.Errorf("shard %d/%d does not exist", r.Shard.Index, r.Shard.Count)
	case r.CampaignCycles < 1:
		return fmt.Errorf("campaign of %d cycles", r.CampaignCycles)
	case r.Cycles < 0 || r.Cycles > r.Shard.Cycles(r.CampaignCycles):
		return fmt.Errorf("%d cycles, but shard %s of a %d-cycle campaign runs %d", r.Cycles, r.Shard, r.CampaignCycles, r.Shard.Cycles(r.CampaignCycles))
	case r.Passed && r.Cycles != r.Shard.Cycles(r.CampaignCycles):
		return fmt.Errorf("passed after %d of its %d cycles", r.Cycles, r.Shard.Cycles(r.CampaignCycles))
	case r.Seed != r.Shard.Seed(r.CampaignSeed):
		return fmt.Errorf("seed %d is not shard %s's seed of campaign seed %d (%d)", r.Seed, r.Shard, r.CampaignSeed, r.Shard.Seed(r.CampaignSeed))
	}
	for name, n := range r.Coverage {
		if n < 0 {
			return fmt.Errorf("coverage %q is %d", name, n)
		}
	}
	return nil
}

// Merge groups records by block and profile and checks that every shard
// reported exactly once, that every record is possible, and that the
// records of a group belong to one campaign: one nicgen version, one
// configuration, one campaign seed and length.
func Merge(recs []RunRecord) ([]Campaign, error) {
	type key struct{ block, profile string }
	groups := map[key][]RunRecord{}
	for i, r := range recs {
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("record %d (%s/%s shard %s): %v", i+1, r.Block, r.Profile, r.Shard, err)
		}
		k := key{r.Block, r.Profile}
		if g := groups[k]; len(g) > 0 {
			f := g[0]
			switch {
			case r.Version != f.Version:
				return nil, fmt.Errorf("%s/%s: records of nicgen %s and %s: one campaign is one version", k.block, k.profile, f.Version, r.Version)
			case r.Config != f.Config:
				return nil, fmt.Errorf("%s/%s: records of two configurations (sha256 %.16s and %.16s)", k.block, k.profile, f.Config, r.Config)
			case r.CampaignSeed != f.CampaignSeed || r.CampaignCycles != f.CampaignCycles:
				return nil, fmt.Errorf("%s/%s: records of two campaigns (seed %d, %d cycles and seed %d, %d cycles)", k.block, k.profile, f.CampaignSeed, f.CampaignCycles, r.CampaignSeed, r.CampaignCycles)
			}
		}
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
		c := Campaign{Block: k.block, Profile: k.profile, Version: g[0].Version, Config: g[0].Config, Seed: g[0].CampaignSeed,
			Shards: g[0].Shard.Count, Coverage: map[string]int64{}}
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
			if r.Broken != "" {
				first, _, _ := strings.Cut(r.Error, "\n")
				r.Passed = false
				r.Error = strings.TrimSpace(fmt.Sprintf("%s (a run of the broken variant %q, equiv --break, not of the block)", first, r.Broken))
			}
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
		// a case is missed when every record missed it
		missed := map[string]int{}
		for _, r := range g {
			for _, m := range r.CoverageMissing {
				missed[m]++
			}
		}
		for m, n := range missed {
			if n == len(g) {
				c.Uncovered = append(c.Uncovered, m)
			}
		}
		sort.Strings(c.Uncovered)
		out = append(out, c)
	}
	return out, nil
}

// Split is the sub-shards of s when it runs as jobs parallel parts: shard
// i of n becomes shards i*jobs .. i*jobs+jobs-1 of n*jobs, so that a
// parallel run is, shard for shard, the campaign of n*jobs shards run one
// after another.
func (s Shard) Split(jobs int) []Shard {
	if jobs < 1 {
		jobs = 1
	}
	out := make([]Shard, jobs)
	for j := range out {
		out[j] = Shard{Index: s.Index*jobs + j, Count: s.Count * jobs}
	}
	return out
}

// ShardRun is one shard's outcome in RunShards.
type ShardRun struct {
	Shard    Shard
	Seed     uint64
	Report   harness.Report
	Coverage CoverageReport
	Err      error // the run's failure (a mismatch, a simulator error)
}

// RunShards runs shards of one campaign (block, profile, campaign seed and
// length) up to jobs at a time in this process. Each shard has its own
// golden model, stimulus and Verilated model instance (one VerilatedContext
// each), so results and coverage are exactly those of running the shards
// one after another. opts gives a shard's run options; RunShards sets
// their Cycles. The error is a failure to set a shard up; a shard's own
// failure is in its ShardRun. muts, when not nil, is a broken variant to
// run instead of the block (NewBenchBroken).
func RunShards(ctx context.Context, cfg blocks.Config, block, profile string, seed uint64, cycles int64,
	shards []Shard, jobs int, bo harness.BuildOptions, opts func(s Shard, seed uint64) harness.RunOptions, muts []hdlgen.Mutation) ([]ShardRun, error) {
	if jobs < 1 {
		jobs = 1
	}
	runs := make([]ShardRun, len(shards))
	benches := make([]*Bench, len(shards))
	models := make([]*harness.Model, len(shards))
	defer func() {
		for _, m := range models {
			if m != nil {
				m.Close()
			}
		}
	}()
	for i, s := range shards {
		runs[i] = ShardRun{Shard: s, Seed: s.Seed(seed)}
		b, err := NewBenchBroken(cfg, block, profile, runs[i].Seed, muts)
		if err != nil {
			return nil, err
		}
		// the first build fills the cache; the others load it
		m, err := harness.Build(ctx, b.Design, bo)
		if err != nil {
			return nil, err
		}
		benches[i], models[i] = b, m
		runs[i].Coverage = b.Coverage
	}
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i := range shards {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			o := opts(shards[i], runs[i].Seed)
			o.Cycles = shards[i].Cycles(cycles)
			runs[i].Report, runs[i].Err = harness.Run(ctx, models[i], benches[i].Ref, benches[i].Stim, o)
		}()
	}
	wg.Wait()
	return runs, nil
}
