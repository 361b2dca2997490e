package blockeq

// caseCounts counts a block's named cases, in the order a run must reach
// them (CoverageReport); the cases of skip are not expected (a mode that
// never reaches them).
type caseCounts struct {
	cases  []string
	counts map[string]int64
	skip   map[string]bool
}

func newCaseCounts(cases []string) caseCounts {
	return caseCounts{cases: cases, counts: map[string]int64{}, skip: map[string]bool{}}
}

// Counts is every case with its count.
func (c *caseCounts) Counts() map[string]int64 {
	out := map[string]int64{}
	for _, n := range c.cases {
		out[n] = c.counts[n]
	}
	return out
}

// Missing lists the expected cases never reached.
func (c *caseCounts) Missing() []string {
	var miss []string
	for _, n := range c.cases {
		if c.counts[n] == 0 && !c.skip[n] {
			miss = append(miss, n)
		}
	}
	return miss
}

func (c *caseCounts) String() string { return FormatCounts(c.Counts()) }
