package harness

// The test design: an 8-bit accumulator behind a valid/ready stream, with a
// combinational s_ready, a sum register that is not reset and is loaded even
// when no event is accepted (so m_sum is only meaningful while m_valid), and
// an adder in a second source file.

const accTopV = `
module acc8 (
    input  wire        clk,
    input  wire        rst,
    input  wire        s_valid,
    output wire        s_ready,
    input  wire [7:0]  s_data,
    output wire        m_valid,
    input  wire        m_ready,
    output wire [7:0]  m_sum,
    output wire [15:0] m_count
);
    reg  [7:0]  acc;
    reg  [7:0]  sum_q;
    reg  [15:0] count;
    reg         valid_q;
    wire [7:0]  next_sum;

    adder8 u_add (.a(acc), .b(s_data), .y(next_sum));

    assign s_ready = !valid_q || m_ready;
    assign m_valid = valid_q;
    assign m_sum   = sum_q;
    assign m_count = count;

    always @(posedge clk) begin
        if (rst) begin
            valid_q <= 1'b0;
            acc     <= 8'd0;
            count   <= 16'd0;
        end else if (s_ready) begin
            valid_q <= s_valid;
            sum_q   <= next_sum;
            if (s_valid) begin
                acc   <= next_sum;
                count <= count + 16'd1;
            end
        end
    end
endmodule
`

const accAdderV = `
module adder8 (
    input  wire [7:0] a,
    input  wire [7:0] b,
    output wire [7:0] y
);
    assign y = a + b;
endmodule
`

func accDesign() Design {
	return Design{
		Top: "acc8",
		Sources: map[string][]byte{
			"acc8.v":   []byte(accTopV),
			"adder8.v": []byte(accAdderV),
		},
		Ports: []Port{
			{Name: "s_valid", Width: 1, Dir: In},
			{Name: "s_ready", Width: 1, Dir: Out},
			{Name: "s_data", Width: 8, Dir: In},
			{Name: "m_valid", Width: 1, Dir: Out},
			{Name: "m_ready", Width: 1, Dir: In},
			{Name: "m_sum", Width: 8, Dir: Out, QualifiedBy: "m_valid"},
			{Name: "m_count", Width: 16, Dir: Out},
		},
	}
}

// Port vector positions.
const (
	inValid, inData, inReady = 0, 1, 2
	outSReady, outMValid     = 0, 1
	outMSum, outMCount       = 2, 3
)

// accRef is the Go golden model of acc8. bugAt > 0 makes the bugAt-th
// accepted event add one too many.
type accRef struct {
	acc, sum uint8
	count    uint16
	valid    bool
	bugAt    int
	accepted int
}

func (r *accRef) Reset() {
	bug := r.bugAt
	*r = accRef{bugAt: bug}
}

func (r *accRef) Cycle(in, out []uint64) {
	sReady := !r.valid || in[inReady] != 0
	out[outSReady] = b2u(sReady)
	out[outMValid] = b2u(r.valid)
	out[outMSum] = 0 // only meaningful while m_valid
	if r.valid {
		out[outMSum] = uint64(r.sum)
	}
	out[outMCount] = uint64(r.count)
	if sReady {
		r.valid = in[inValid] != 0
		if r.valid {
			r.accepted++
			r.acc += uint8(in[inData])
			if r.accepted == r.bugAt {
				r.acc++
			}
			r.sum = r.acc
			r.count++
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// rng is xorshift64*: tiny, fast and reproducible.
type rng uint64

func (r *rng) next() uint64 {
	x := uint64(*r)
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	*r = rng(x)
	return x * 2685821657736338717
}

// accStim is a stream source that holds an event until it is accepted
// (it sees acceptance in the previous cycle's expected s_ready) and a sink
// that applies random back-pressure.
type accStim struct {
	r     rng
	valid bool
	data  uint64
}

func (s *accStim) Next(prev, in []uint64) {
	x := s.r.next()
	if prev == nil || !s.valid || prev[outSReady] != 0 {
		s.valid = x&3 != 0 // 75% valid
		s.data = x >> 8    // wider than 8 bits on purpose: the harness masks
	}
	in[inValid] = b2u(s.valid)
	in[inData] = s.data
	in[inReady] = b2u(x&(7<<4) != 0) // 87.5% ready
}

func newAccStim(seed uint64) func() Stimulus {
	return func() Stimulus { return &accStim{r: rng(seed | 1)} }
}
