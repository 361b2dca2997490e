/*
 * uet_nic: an example of uet_cc in a NIC's transmit and receive paths
 * (docs/integration.md). Hand-written, not generated: copy it and adapt it.
 *
 * The transmit path: the queue manager offers a packet of a connection on
 * s_axis_tx_req. When the connection may send (the last uet_cc result of
 * the connection said so) and none of its sends is still in uet_cc's
 * pipeline, the request becomes a send event; its result gives the entropy,
 * and the packet leaves on m_axis_tx_pkt with the entropy and a timestamp.
 * Otherwise the request returns on m_axis_tx_defer for the queue manager
 * to offer again later.
 *
 * The receive path: acks, nacks (trims) and timeouts arrive on s_axis_rx
 * with the connection, the packet's size, its ECN echo, its entropy and the
 * timestamp it left with; the RTT is now - timestamp. Opens arrive there
 * too (the connection manager opens a connection before its first request).
 * The receive path has priority over the transmit path.
 *
 * Every uet_cc result is also shown on the cc_* status outputs for one
 * cycle (window, bytes in flight, may_send, the rule applied): telemetry,
 * without backpressure.
 *
 * The widths are uet_cc's in the default configuration, and NS_PER_CYCLE
 * is its clock: 4 ns at 250 MHz (hardware.clock_mhz).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module uet_nic #
(
    // connections of uet_cc's table (hardware.connections)
    parameter NUM_CONN = 4096,
    parameter CONN_W = 16,
    parameter SIZE_W = 14,
    parameter RTT_W = 20,
    parameter EV_W = 16,
    parameter TIME_W = 32,
    parameter CWND_W = 21,
    parameter BYTE_W = 21,
    // the timestamp counts ns: NS_PER_CYCLE = 1000 / hardware.clock_mhz
    parameter NS_PER_CYCLE = 4,
    // sends in uet_cc's pipeline at most: at least its credits (depth + 5)
    parameter SEND_FIFO_LOG2 = 5
)
(
    input  wire                 clk,
    input  wire                 rst,

    /*
     * Transmit requests: a packet of s_axis_tx_req_size bytes of a connection
     */
    input  wire                 s_axis_tx_req_tvalid,
    output wire                 s_axis_tx_req_tready,
    input  wire [CONN_W-1:0]    s_axis_tx_req_conn,
    input  wire [SIZE_W-1:0]    s_axis_tx_req_size,

    /*
     * Requests the window holds back, for the queue manager to offer again
     */
    output wire                 m_axis_tx_defer_tvalid,
    input  wire                 m_axis_tx_defer_tready,
    output wire [CONN_W-1:0]    m_axis_tx_defer_conn,
    output wire [SIZE_W-1:0]    m_axis_tx_defer_size,

    /*
     * Packets to transmit: connection, size, entropy, timestamp (ns)
     */
    output wire                 m_axis_tx_pkt_tvalid,
    input  wire                 m_axis_tx_pkt_tready,
    output wire [CONN_W-1:0]    m_axis_tx_pkt_conn,
    output wire [SIZE_W-1:0]    m_axis_tx_pkt_size,
    output wire [EV_W-1:0]      m_axis_tx_pkt_ev,
    output wire [TIME_W-1:0]    m_axis_tx_pkt_ts,

    /*
     * Receive path and control: kind 0 open, 2 ack, 3 nack (trim), 4 timeout
     */
    input  wire                 s_axis_rx_tvalid,
    output wire                 s_axis_rx_tready,
    input  wire [CONN_W-1:0]    s_axis_rx_conn,
    input  wire [2:0]           s_axis_rx_kind,
    input  wire [SIZE_W-1:0]    s_axis_rx_size,
    input  wire                 s_axis_rx_ecn,
    input  wire [EV_W-1:0]      s_axis_rx_ev,
    input  wire [TIME_W-1:0]    s_axis_rx_ts,

    /*
     * Status: every uet_cc result, for one cycle
     */
    output wire                 cc_valid,
    output wire [CONN_W-1:0]    cc_conn,
    output wire [2:0]           cc_kind,
    output wire [CWND_W-1:0]    cc_cwnd,
    output wire [BYTE_W-1:0]    cc_inflight,
    output wire                 cc_may_send,
    output wire [2:0]           cc_case,
    output wire                 cc_qa,
    output wire                 cc_fast,
    output wire                 cc_explored,
    output wire                 cc_frozen,
    output wire                 cc_error
);

localparam [2:0] KIND_SEND = 3'd1;
localparam SEND_FIFO_DEPTH = 2**SEND_FIFO_LOG2;
localparam [RTT_W-1:0] RTT_MAX = {RTT_W{1'b1}};
localparam IDX_W = $clog2(NUM_CONN);

// the time in ns
reg [TIME_W-1:0] now_reg = {TIME_W{1'b0}};

// per connection: may send (the last result said so), a send in flight
reg [NUM_CONN-1:0] may_reg = {NUM_CONN{1'b0}};
reg [NUM_CONN-1:0] busy_reg = {NUM_CONN{1'b0}};

// size and timestamp of each send in uet_cc's pipeline, in order
reg [SIZE_W+TIME_W-1:0] send_mem [0:SEND_FIFO_DEPTH-1];
reg [SEND_FIFO_LOG2:0] send_wr_ptr_reg = {SEND_FIFO_LOG2+1{1'b0}};
reg [SEND_FIFO_LOG2:0] send_rd_ptr_reg = {SEND_FIFO_LOG2+1{1'b0}};

wire send_fifo_full = (send_wr_ptr_reg - send_rd_ptr_reg) == SEND_FIFO_DEPTH[SEND_FIFO_LOG2:0];

// uet_cc's streams
wire                cc_s_valid;
wire                cc_s_ready;
wire [CONN_W-1:0]   cc_s_conn;
wire [2:0]          cc_s_kind;
wire [SIZE_W-1:0]   cc_s_size;
wire                cc_s_ecn;
wire [RTT_W-1:0]    cc_s_rtt;
wire [EV_W-1:0]     cc_s_ev;

wire                cc_m_valid;
wire                cc_m_ready;
wire [CONN_W-1:0]   cc_m_conn;
wire [2:0]          cc_m_kind;
wire [EV_W-1:0]     cc_m_ev;
wire [CWND_W-1:0]   cc_m_cwnd;
wire [BYTE_W-1:0]   cc_m_inflight;
wire                cc_m_may_send;
wire [2:0]          cc_m_case;
wire                cc_m_qa;
wire                cc_m_fast;
wire                cc_m_explored;
wire                cc_m_frozen;
wire                cc_m_error;

// the request is eligible when its connection exists, may send and has no
// send in flight, and the send FIFO has room
wire [IDX_W-1:0] req_idx = s_axis_tx_req_conn[IDX_W-1:0];
wire req_in_range = s_axis_tx_req_conn < NUM_CONN;
wire req_eligible = req_in_range && may_reg[req_idx] && !busy_reg[req_idx] && !send_fifo_full;

// receive first; a request goes to uet_cc or back to the queue manager
wire rx_go = s_axis_rx_tvalid;
wire req_send = s_axis_tx_req_tvalid && !rx_go && req_eligible;
wire req_defer = s_axis_tx_req_tvalid && !rx_go && !req_eligible;

// RTT of a feedback: now - the packet's timestamp, saturated to the port
wire [TIME_W-1:0] rx_age = now_reg - s_axis_rx_ts;
wire [RTT_W-1:0] rx_rtt = rx_age > {{TIME_W-RTT_W{1'b0}}, RTT_MAX} ? RTT_MAX : rx_age[RTT_W-1:0];

assign cc_s_valid = rx_go || req_send;
assign cc_s_conn = rx_go ? s_axis_rx_conn : s_axis_tx_req_conn;
assign cc_s_kind = rx_go ? s_axis_rx_kind : KIND_SEND;
assign cc_s_size = rx_go ? s_axis_rx_size : s_axis_tx_req_size;
assign cc_s_ecn = rx_go && s_axis_rx_ecn;
assign cc_s_rtt = rx_go ? rx_rtt : {RTT_W{1'b0}};
assign cc_s_ev = rx_go ? s_axis_rx_ev : {EV_W{1'b0}};

assign s_axis_rx_tready = cc_s_ready;
assign s_axis_tx_req_tready = !rx_go && (req_eligible ? cc_s_ready : m_axis_tx_defer_tready);

assign m_axis_tx_defer_tvalid = req_defer;
assign m_axis_tx_defer_conn = s_axis_tx_req_conn;
assign m_axis_tx_defer_size = s_axis_tx_req_size;

// a send's result leaves as a packet; other results are taken at once
wire res_send = cc_m_kind == KIND_SEND && !cc_m_error;
wire [SIZE_W+TIME_W-1:0] send_head = send_mem[send_rd_ptr_reg[SEND_FIFO_LOG2-1:0]];

assign cc_m_ready = !res_send || m_axis_tx_pkt_tready;

assign m_axis_tx_pkt_tvalid = cc_m_valid && res_send;
assign m_axis_tx_pkt_conn = cc_m_conn;
assign m_axis_tx_pkt_ev = cc_m_ev;
assign m_axis_tx_pkt_size = send_head[SIZE_W+TIME_W-1:TIME_W];
assign m_axis_tx_pkt_ts = send_head[TIME_W-1:0];

wire res_take = cc_m_valid && cc_m_ready;

assign cc_valid = res_take;
assign cc_conn = cc_m_conn;
assign cc_kind = cc_m_kind;
assign cc_cwnd = cc_m_cwnd;
assign cc_inflight = cc_m_inflight;
assign cc_may_send = cc_m_may_send;
assign cc_case = cc_m_case;
assign cc_qa = cc_m_qa;
assign cc_fast = cc_m_fast;
assign cc_explored = cc_m_explored;
assign cc_frozen = cc_m_frozen;
assign cc_error = cc_m_error;

// a result without error names a connection in range
wire [IDX_W-1:0] res_idx = cc_m_conn[IDX_W-1:0];

wire send_push = req_send && cc_s_ready;
wire send_pop = res_take && cc_m_kind == KIND_SEND && !cc_m_error;

always @(posedge clk) begin
    now_reg <= now_reg + NS_PER_CYCLE[TIME_W-1:0];

    if (send_push) begin
        send_mem[send_wr_ptr_reg[SEND_FIFO_LOG2-1:0]] <= {s_axis_tx_req_size, now_reg};
        send_wr_ptr_reg <= send_wr_ptr_reg + 1'b1;
        busy_reg[req_idx] <= 1'b1;
    end
    if (send_pop) begin
        send_rd_ptr_reg <= send_rd_ptr_reg + 1'b1;
    end
    // a result of a connection in range: its connection's state after it
    if (res_take && !cc_m_error) begin
        may_reg[res_idx] <= cc_m_may_send;
        if (cc_m_kind == KIND_SEND) begin
            busy_reg[res_idx] <= 1'b0;
        end
    end

    if (rst) begin
        now_reg <= {TIME_W{1'b0}};
        may_reg <= {NUM_CONN{1'b0}};
        busy_reg <= {NUM_CONN{1'b0}};
        send_wr_ptr_reg <= {SEND_FIFO_LOG2+1{1'b0}};
        send_rd_ptr_reg <= {SEND_FIFO_LOG2+1{1'b0}};
    end
end

uet_cc
uet_cc_inst (
    .clk(clk),
    .rst(rst),
    .s_event_valid(cc_s_valid),
    .s_event_ready(cc_s_ready),
    .s_event_conn(cc_s_conn),
    .s_event_kind(cc_s_kind),
    .s_event_size(cc_s_size),
    .s_event_ecn(cc_s_ecn),
    .s_event_rtt(cc_s_rtt),
    .s_event_ev(cc_s_ev),
    .s_event_now(now_reg),
    .m_result_valid(cc_m_valid),
    .m_result_ready(cc_m_ready),
    .m_result_conn(cc_m_conn),
    .m_result_kind(cc_m_kind),
    .m_result_ev(cc_m_ev),
    .m_result_explored(cc_m_explored),
    .m_result_frozen(cc_m_frozen),
    .m_result_cwnd(cc_m_cwnd),
    .m_result_case(cc_m_case),
    .m_result_qa(cc_m_qa),
    .m_result_fast(cc_m_fast),
    .m_result_inflight(cc_m_inflight),
    .m_result_may_send(cc_m_may_send),
    .m_result_error(cc_m_error)
);

endmodule

`resetall
