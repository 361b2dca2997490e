package collective

// WMPoint is an initiator's two watermarks after a probe, in tokens per
// WM_MAX cycles.
type WMPoint struct {
	At       int64   `json:"at"`
	Req, Rsp float64 `json:"-"`
}

// progressSteps is the resolution of Result.Progress.
const progressSteps = 32

// Result is one run's measures.
type Result struct {
	Control      Control `json:"control"`
	GPUs         int     `json:"gpus"`
	Initiators   int     `json:"initiators"`
	Transactions int     `json:"transactions"`
	Window       int     `json:"window,omitempty"` // Control Window: the window per operation type

	// Cycles until the last write's ack reached its initiator.
	Cycles int64 `json:"cycles"`
	// EffFlits counts GPUs x DataFlits per completed read reduction (its
	// members' responses) and per completed write multicast (its copies
	// delivered); EffBW is EffFlits / (Cycles x GPUs), at most 2 with both
	// directions of every link full of data, Bound with the 1-flit
	// requests and acks beside it (Config.Bound).
	EffFlits int64   `json:"effective_flits"`
	EffBW    float64 `json:"effective_bandwidth"`
	Bound    float64 `json:"bound"`

	// Latency of the packets delivered to GPUs (request copies, reduced
	// responses; not probes), from entering the network to the last flit
	// at the GPU, cycles.
	Packets int64   `json:"packets"`
	AvgLat  float64 `json:"avg_latency"`
	P99Lat  int64   `json:"p99_latency"`
	MaxLat  int64   `json:"max_latency"`

	// Spacing: the mean cycles between an initiator's write multicasts
	// over the middle half of its writes; SpacingIdeal is N x (DataFlits
	// + 1), each initiator's 1/N share of every member's downlink (a
	// transaction puts a write and a read request on it).
	Spacing      float64 `json:"spacing"`
	SpacingIdeal float64 `json:"spacing_ideal"`

	// 3CPO: the watermarks of every initiator after every probe, over the
	// run and over its second half, in tokens per WM_MAX cycles.
	WMMin     float64 `json:"wm_min,omitempty"`
	WMMax     float64 `json:"wm_max,omitempty"`
	WMLateMin float64 `json:"wm_late_min,omitempty"`
	WMLateMax float64 `json:"wm_late_max,omitempty"`
	// Progress[k] is the cycle by which (k+1)/progressSteps of the
	// transactions had completed.
	Progress []int64 `json:"-"`
	// WMFinalMin and WMFinalMax bound the initiators' watermarks after
	// their last probes.
	WMFinalMin float64 `json:"wm_final_min,omitempty"`
	WMFinalMax float64 `json:"wm_final_max,omitempty"`
	// Trace is initiator 0's watermarks after each of its probes.
	Trace       []WMPoint `json:"-"`
	Probes      int64     `json:"probes,omitempty"`
	Sends       int64     `json:"sends,omitempty"`
	IRLEvents   int64     `json:"irl_events,omitempty"`
	WMEvents    int64     `json:"wm_events,omitempty"`
	WMDecreases int64     `json:"wm_decreases,omitempty"`
}
