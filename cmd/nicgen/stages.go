package main

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/nicgen/nicgen/hdlgen"
)

// stageRow is one datapath stage of a block's shell: the registers that
// carry values into it (the shell's sN_ registers) and the values first
// cut there, which the stage before computed.
type stageRow struct {
	stage int
	regs  int
	bits  int
	first []string // base names first registered at this stage, sorted
}

var (
	stageReg  = regexp.MustCompile(`^s(\d+)_(.+)$`)
	anonymous = regexp.MustCompile(`^t(_\d+)?$`) // the DSL's names for unnamed values cut by a stage
)

// pipelineStages reads the stage registers of module m (named sN_VALUE by
// the shell, docs/pipeline.md): per stage, how many registers and bits it
// holds and which values are registered there first.
func pipelineStages(m *hdlgen.Module) []stageRow {
	byStage := map[int]*stageRow{}
	firstAt := map[string]int{}
	for _, s := range m.Signals() {
		if !s.IsReg() {
			continue
		}
		g := stageReg.FindStringSubmatch(s.Name())
		if g == nil {
			continue
		}
		n, _ := strconv.Atoi(g[1])
		g[2] = strings.TrimSuffix(g[2], "_reg")
		r := byStage[n]
		if r == nil {
			r = &stageRow{stage: n}
			byStage[n] = r
		}
		r.regs++
		r.bits += s.Width()
		if at, ok := firstAt[g[2]]; !ok || n < at {
			firstAt[g[2]] = n
		}
	}
	for name, n := range firstAt {
		byStage[n].first = append(byStage[n].first, name)
	}
	rows := make([]stageRow, 0, len(byStage))
	for _, r := range byStage {
		sort.Strings(r.first)
		rows = append(rows, *r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].stage < rows[j].stage })
	return rows
}

// stagesMarkdown is the datasheet's table of pipelineStages.
func stagesMarkdown(rows []stageRow) string {
	var b strings.Builder
	b.WriteString("| stage | registers | bits | registered here first |\n|---:|---:|---:|---|\n")
	for _, r := range rows {
		var first []string
		temps := 0
		for _, f := range r.first {
			if anonymous.MatchString(f) {
				temps++
				continue
			}
			first = append(first, "`"+f+"`")
		}
		if temps > 0 {
			first = append(first, fmt.Sprintf("%d unnamed intermediate value%s", temps, map[bool]string{true: "s"}[temps > 1]))
		}
		fmt.Fprintf(&b, "| %d | %d | %d | %s |\n", r.stage, r.regs, r.bits, strings.Join(first, ", "))
	}
	return b.String()
}
