package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/explore"
	"github.com/nicgen/nicgen/hdlgen"
	"github.com/nicgen/nicgen/verilator-harness/blockeq"
)

// exploreRecord is what one shard of an explore campaign writes (`nicgen
// budget --explore BLOCK --shard i/n --report FILE`): its campaign's
// identity and the points it measured, numbered as in the whole sweep.
type exploreRecord struct {
	Kind        string          `json:"kind"` // "explore"
	Block       string          `json:"block"`
	Version     string          `json:"nicgen_version"`
	Config      string          `json:"config_sha256"`
	Shard       blockeq.Shard   `json:"shard"`
	Connections int             `json:"connections"`
	Reference   string          `json:"reference"`
	Points      []explore.Point `json:"points"`
}

// exploreNumbers is the unmeasured sweep, which numbers points by bits
// and settings, and every point's number by its settings.
func exploreNumbers(r *config.Resolved, block string) (*explore.Result, map[string]int, error) {
	all, err := sweep(r.Config, block, io.Discard, false, nil)
	if err != nil {
		return nil, nil, err
	}
	ids := map[string]int{}
	for _, p := range all.Points {
		ids[explore.SettingsKey(p.Settings)] = p.ID
	}
	return all, ids, nil
}

// exploreShard measures shard sh of the sweep: the points whose number
// minus one is sh.Index modulo sh.Count. The Pareto front is the merge's
// to mark (it needs every point).
func exploreShard(r *config.Resolved, block string, sh blockeq.Shard, progress io.Writer) (*exploreRecord, error) {
	_, ids, err := exploreNumbers(r, block)
	if err != nil {
		return nil, err
	}
	mine := func(key string) bool { id, ok := ids[key]; return ok && (id-1)%sh.Count == sh.Index }
	res, err := sweep(r.Config, block, progress, true, mine)
	if err != nil {
		return nil, err
	}
	for i := range res.Points {
		p := &res.Points[i]
		p.ID, p.Pareto = ids[explore.SettingsKey(p.Settings)], false
	}
	return &exploreRecord{Kind: "explore", Block: block, Version: hdlgen.Version, Config: r.SHA256, Shard: sh,
		Connections: res.Connections, Reference: res.Reference, Points: res.Points}, nil
}

// runExploreShard is budget --explore BLOCK --shard i/n --report FILE.
func runExploreShard(cmd *cobra.Command, r *config.Resolved, block, shardArg, report string) error {
	sh, err := blockeq.ParseShard(shardArg)
	if err != nil {
		return usageErr("--shard: %v", err)
	}
	if report == "" {
		return usageErr("--shard: --report FILE is required (the shard's record)")
	}
	if err := checkWritable(report); err != nil {
		return usageErr("--report: %v", err)
	}
	rec, err := exploreShard(r, block, sh, cmd.ErrOrStderr())
	if err != nil {
		return usageErr("--explore: %v", err)
	}
	js, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(report, append(js, '\n')); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "explore %s shard %s: %d points -> %s\n", block, sh, len(rec.Points), report)
	return nil
}

// mergeExploreCampaign checks an explore campaign's records against
// campaign.json and against the sweep of its own configuration (every
// point once, numbered as the sweep numbers it), then prints the whole
// sweep with its Pareto front, as budget --explore does.
func mergeExploreCampaign(cmd *cobra.Command, spec campaignSpec, dir string, files []string) error {
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "campaign: explore %s, nicgen %s, configuration sha256 %s, %d tasks\n", spec.Block, spec.Version, spec.Config, spec.Tasks)
	r, err := loadConfig(filepath.Join(dir, "config.hcl"))
	if err != nil {
		return err
	}
	all, ids, err := exploreNumbers(r, spec.Block)
	if err != nil {
		return usageErr("%v", err)
	}
	seen := map[int]string{}
	byID := map[int]explore.Point{}
	res := &explore.Result{Block: spec.Block, Bounds: all.Bounds}
	for _, f := range files {
		b, err := readCapped(f, maxReportBytes)
		if err != nil {
			return err
		}
		var rec exploreRecord
		if err := json.Unmarshal(b, &rec); err != nil || rec.Kind != "explore" {
			return usageErr("%s: not an explore record (nicgen budget --explore --shard --report): %v", f, jsonProblem(err))
		}
		if rec.Block != spec.Block || rec.Version != spec.Version || rec.Config != spec.Config || rec.Shard.Count != spec.Tasks {
			return usageErr("%s: a record of another campaign (explore %s, nicgen %s, configuration %.16s, %d shards)", f, rec.Block, rec.Version, rec.Config, rec.Shard.Count)
		}
		if prev, ok := seen[rec.Shard.Index]; ok {
			return usageErr("%s: shard %s again (first in %s)", f, rec.Shard, prev)
		}
		seen[rec.Shard.Index] = f
		res.Connections, res.Reference = rec.Connections, rec.Reference
		for _, p := range rec.Points {
			key := explore.SettingsKey(p.Settings)
			id, ok := ids[key]
			if !ok || id != p.ID || (id-1)%spec.Tasks != rec.Shard.Index {
				return usageErr("%s: point %d (%s) is not the sweep's point of that number for shard %s", f, p.ID, strings.TrimSuffix(key, ";"), rec.Shard)
			}
			if _, dup := byID[id]; dup {
				return usageErr("%s: point %d twice", f, id)
			}
			byID[id] = p
		}
	}
	var missing []string
	for i := 0; i < spec.Tasks; i++ {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, spec.Tasks))
		}
	}
	fmt.Fprintf(out, "%d of %d shards reported, %d of %d points\n", len(seen), spec.Tasks, len(byID), len(ids))
	if len(missing) > 0 || len(byID) != len(ids) {
		if len(missing) > 0 {
			fmt.Fprintf(out, "  shards that never reported: %s\n", strings.Join(missing, ", "))
		}
		return &exitError{code: 1, err: fmt.Errorf("campaign incomplete: %d of %d points", len(byID), len(ids))}
	}
	keys := make([]int, 0, len(byID))
	for id := range byID {
		keys = append(keys, id)
	}
	slices.Sort(keys)
	for _, id := range keys {
		res.Points = append(res.Points, byID[id])
	}
	explore.Finish(res)
	printExplore(out, res, "")
	return nil
}

func newCampaignExploreCmd() *cobra.Command {
	var f campaignFlags
	var shards int
	cmd := &cobra.Command{
		Use:     "explore BLOCK",
		Short:   "A state-explorer campaign: --shards tasks, each nicgen budget --explore BLOCK --shard i/n, the merge marks the Pareto front",
		Example: "  nicgen campaign explore nscc --shards 8 -o camp/nscc-explore",
		Args:    oneArg("BLOCK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if shards < 1 || shards > 1000 {
				return usageErr("--shards %d: want 1..1000", shards)
			}
			return writeCampaign(cmd, f, campaignSpec{Kind: "explore", Block: args[0], Tasks: shards})
		},
	}
	f.add(cmd)
	cmd.Flags().IntVar(&shards, "shards", 4, "array tasks, each measuring every n-th point of the sweep")
	return cmd
}
