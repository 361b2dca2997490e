package eda

import (
	"context"
	"strings"
	"testing"
)

// NoLatches passes a clean design and names the latch of a design with
// an incomplete assignment.
func TestNoLatches(t *testing.T) {
	clean := Files{"ok.v": []byte(`module ok(input wire clk, input wire en, input wire [3:0] d, output reg [3:0] q);
always @(posedge clk) if (en) q <= d;
endmodule
`)}
	if err := NoLatches(context.Background(), "ok", clean); err != nil {
		t.Errorf("clean design: %v", err)
	}
	latch := Files{"bad.v": []byte(`module bad(input wire en, input wire [3:0] d, output reg [3:0] q);
always @* if (en) q = d;
endmodule
`)}
	err := NoLatches(context.Background(), "bad", latch)
	if err == nil || !strings.Contains(err.Error(), "latches in bad") {
		t.Errorf("latch not reported: %v", err)
	}
	// Yosys's netlist check: a combinational loop, two drivers of a wire
	for name, text := range map[string]string{
		"loop": `module loop(input wire a, output wire y);
wire b;
assign b = a ^ y;
assign y = b & a;
endmodule
`,
		"twice": `module twice(input wire a, input wire b, output wire y);
assign y = a;
assign y = b;
endmodule
`,
	} {
		if err := NoLatches(context.Background(), name, Files{name + ".v": []byte(text)}); err == nil {
			t.Errorf("%s: Yosys's check passed it", name)
		}
	}
}
