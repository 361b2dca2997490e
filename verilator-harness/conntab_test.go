package harness

import (
	"context"
	"testing"
)

// conntab is a more realistic test design, shaped like a NIC datapath
// block: an event stream in, a per-connection state table (1024 words), a
// global LFSR, two pipeline stages and a result stream out whose data is
// only meaningful while m_valid.
const conntabV = `
module conntab #(
    parameter [31:0] LFSR_SEED = 32'hACE12D3B
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        s_valid,
    output wire        s_ready,
    input  wire [9:0]  s_conn,
    input  wire [1:0]  s_kind,   // 0 open, 1 add, 2 query, 3 draw
    input  wire [15:0] s_value,
    input  wire [31:0] s_now,
    output wire        m_valid,
    input  wire        m_ready,
    output reg  [9:0]  m_conn,
    output reg  [15:0] m_count,
    output reg  [31:0] m_sum,
    output reg  [31:0] m_age,
    output reg  [15:0] m_rand
);
    reg [15:0] count_mem [0:1023];
    reg [31:0] sum_mem   [0:1023];
    reg [31:0] last_mem  [0:1023];

    reg        s1_valid;
    reg [9:0]  s1_conn;
    reg [1:0]  s1_kind;
    reg [15:0] s1_value;
    reg [31:0] s1_now;
    reg        valid_q;
    reg [31:0] lfsr;

    wire advance = !valid_q || m_ready;
    assign s_ready = advance;
    assign m_valid = valid_q;

    // Execute the event in stage 1 against the table.
    wire [15:0] old_count = count_mem[s1_conn];
    wire [31:0] old_sum   = sum_mem[s1_conn];
    wire [31:0] old_last  = last_mem[s1_conn];
    reg  [15:0] new_count;
    reg  [31:0] new_sum;
    reg  [31:0] new_lfsr;
    integer i;
    always @* begin
        new_count = old_count;
        new_sum   = old_sum;
        new_lfsr  = lfsr;
        case (s1_kind)
            2'd0: begin new_count = 16'd0; new_sum = 32'd0; end
            2'd1: begin new_count = old_count + 16'd1; new_sum = old_sum + {16'd0, s1_value}; end
            2'd2: ;
            2'd3: begin
                new_count = old_count + 16'd1;
                for (i = 0; i < 16; i = i + 1)
                    new_lfsr = new_lfsr[0] ? ((new_lfsr >> 1) ^ 32'h80200003) : (new_lfsr >> 1);
            end
        endcase
    end

    always @(posedge clk) begin
        if (rst) begin
            s1_valid <= 1'b0;
            valid_q  <= 1'b0;
            lfsr     <= LFSR_SEED;
        end else if (advance) begin
            valid_q <= s1_valid;
            if (s1_valid) begin
                count_mem[s1_conn] <= new_count;
                sum_mem[s1_conn]   <= new_sum;
                if (s1_kind != 2'd2) last_mem[s1_conn] <= s1_now;
                lfsr    <= new_lfsr;
                m_conn  <= s1_conn;
                m_count <= new_count;
                m_sum   <= new_sum;
                m_age   <= s1_now - old_last;
                m_rand  <= (s1_kind == 2'd3) ? new_lfsr[15:0] : 16'd0;
            end
            s1_valid <= s_valid;
            s1_conn  <= s_conn;
            s1_kind  <= s_kind;
            s1_value <= s_value;
            s1_now   <= s_now;
        end
    end
endmodule
`

func conntabDesign() Design {
	q := "m_valid"
	return Design{
		Top:     "conntab",
		Sources: map[string][]byte{"conntab.v": []byte(conntabV)},
		Ports: []Port{
			{Name: "s_valid", Width: 1, Dir: In},
			{Name: "s_ready", Width: 1, Dir: Out},
			{Name: "s_conn", Width: 10, Dir: In},
			{Name: "s_kind", Width: 2, Dir: In},
			{Name: "s_value", Width: 16, Dir: In},
			{Name: "s_now", Width: 32, Dir: In},
			{Name: "m_valid", Width: 1, Dir: Out},
			{Name: "m_ready", Width: 1, Dir: In},
			{Name: "m_conn", Width: 10, Dir: Out, QualifiedBy: q},
			{Name: "m_count", Width: 16, Dir: Out, QualifiedBy: q},
			{Name: "m_sum", Width: 32, Dir: Out, QualifiedBy: q},
			{Name: "m_age", Width: 32, Dir: Out, QualifiedBy: q},
			{Name: "m_rand", Width: 16, Dir: Out, QualifiedBy: q},
		},
	}
}

// Input and output vector positions.
const (
	ctValid, ctConn, ctKind, ctValue, ctNow, ctMReady = 0, 1, 2, 3, 4, 5
	ctSReady, ctMValid, ctMConn, ctMCount             = 0, 1, 2, 3
	ctMSum, ctMAge, ctMRand                           = 4, 5, 6
)

type ctEvent struct {
	conn, kind, value, now uint64
}

type ctResult struct {
	conn, count, sum, age, rand uint64
}

// conntabRef is the golden model: a transaction-level step per event, in a
// two-stage pipeline shell.
type conntabRef struct {
	count [1024]uint16
	sum   [1024]uint32
	last  [1024]uint32
	lfsr  uint32

	s1      ctEvent
	s1Valid bool
	res     ctResult
	valid   bool
}

func (r *conntabRef) Reset() {
	// The table is not reset (as in the RTL); a fresh Run starts from a
	// fresh model, so clear it here too.
	*r = conntabRef{lfsr: 0xACE12D3B}
}

func (r *conntabRef) exec(e ctEvent) ctResult {
	c := e.conn
	oldLast := r.last[c]
	res := ctResult{conn: c}
	switch e.kind {
	case 0:
		r.count[c], r.sum[c] = 0, 0
	case 1:
		r.count[c]++
		r.sum[c] += uint32(e.value)
	case 3:
		r.count[c]++
		for range 16 { // one Galois step: shift, xor the taps if the lsb was 1
			r.lfsr = r.lfsr>>1 ^ -(r.lfsr&1)&0x80200003
		}
		res.rand = uint64(r.lfsr & 0xffff)
	}
	if e.kind != 2 {
		r.last[c] = uint32(e.now)
	}
	res.count, res.sum = uint64(r.count[c]), uint64(r.sum[c])
	res.age = uint64(uint32(e.now) - oldLast)
	return res
}

func (r *conntabRef) Cycle(in, out []uint64) {
	advance := !r.valid || in[ctMReady] != 0
	out[ctSReady] = b2u(advance)
	out[ctMValid] = b2u(r.valid)
	out[ctMConn], out[ctMCount], out[ctMSum], out[ctMAge], out[ctMRand] = r.res.conn, r.res.count, r.res.sum, r.res.age, r.res.rand
	if !advance {
		return
	}
	r.valid = r.s1Valid
	if r.s1Valid {
		r.res = r.exec(r.s1)
	}
	r.s1Valid = in[ctValid] != 0
	r.s1 = ctEvent{conn: in[ctConn], kind: in[ctKind], value: in[ctValue], now: in[ctNow]}
}

// conntabStim sends events (often to a few hot connections, so that
// back-to-back events hit the same word) and holds each until accepted.
type conntabStim struct {
	r     rng
	now   uint64
	valid bool
	ev    ctEvent
}

func (s *conntabStim) Next(prev, in []uint64) {
	x := s.r.next()
	s.now += 1 + x&3
	if prev == nil || !s.valid || prev[ctSReady] != 0 {
		y := s.r.next()
		s.valid = x&(3<<2) != 0
		conn := y & 1023
		if y&(1<<10) != 0 {
			conn &= 3
		}
		s.ev = ctEvent{conn: conn, kind: (y >> 11) & 3, value: (y >> 13) & 0xffff, now: s.now & 0xffffffff}
	}
	in[ctValid] = b2u(s.valid)
	in[ctConn], in[ctKind], in[ctValue], in[ctNow] = s.ev.conn, s.ev.kind, s.ev.value, s.ev.now
	in[ctMReady] = b2u(x&(7<<4) != 0)
}

func newConntabStim(seed uint64) func() Stimulus {
	return func() Stimulus { return &conntabStim{r: rng(seed | 1)} }
}

func buildConntab(t testing.TB) *Model {
	t.Helper()
	m, err := Build(context.Background(), conntabDesign(), BuildOptions{CacheDir: testCache})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestConntabEquivalence(t *testing.T) {
	m := buildConntab(t)
	rep, err := Run(context.Background(), m, &conntabRef{}, newConntabStim(5), RunOptions{Cycles: 1_000_000, Label: "seed=5"})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(rep)
}

func BenchmarkConntabModelAlone(b *testing.B) {
	m := buildConntab(b)
	b.ResetTimer()
	b.ReportMetric(modelAloneStim(m, newConntabStim(99)(), b.N), "cycles/s")
}

func BenchmarkConntabEndToEnd(b *testing.B) {
	m := buildConntab(b)
	b.ResetTimer()
	rep, err := Run(context.Background(), m, &conntabRef{}, newConntabStim(1), RunOptions{Cycles: int64(b.N)})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	reportEndToEnd(b, m, rep, newConntabStim(99)())
}
