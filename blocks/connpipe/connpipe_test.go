package connpipe

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/nicgen/nicgen/hdlgen"
)

// toySpec is a counter per connection: add the event's amount, return the
// new count and whether it wrapped.
func toySpec() Spec {
	return Spec{
		NumConn: 16, ConnW: 4, KindW: 1, NumKinds: 2, KindNames: []string{"open", "add"},
		EventFields:  []Field{{Name: "amount", Width: 8, Doc: "amount to add"}},
		ResultFields: []Field{{Name: "count", Width: 8, Doc: "new count"}, {Name: "wrapped", Width: 1, Doc: "the sum wrapped"}},
		Word:         hdlgen.NewLayout("toy_word").Field("count", 8, "running sum"),
		Core:         Core{Depth: 1},
	}
}

func toyStep(result map[string]bool, eventField string) func(Step) Outcome {
	word := toySpec().Word
	return func(st Step) Outcome { // toy datapath
		sum := st.Cur.F("count").ZExt(9).Add(st.Event.F(eventField).ZExt(9))
		res := map[string]hdlgen.Value{}
		if result["count"] {
			res["count"] = sum.Trunc(8)
		}
		if result["wrapped"] {
			res["wrapped"] = sum.Bit(8)
		}
		return Outcome{Word: word.Pack(map[string]hdlgen.Value{"count": sum.Trunc(8)}), Result: res}
	}
}

func build(step func(Step) Outcome) error {
	m := hdlgen.NewModule("toy", "")
	if err := Build(m, toySpec(), step); err != nil {
		return err
	}
	_, err := hdlgen.Elaborate(m)
	return err
}

func TestToyBlockBuilds(t *testing.T) {
	if err := build(toyStep(map[string]bool{"count": true, "wrapped": true}, "amount")); err != nil {
		t.Fatal(err)
	}
}

// A result field the datapath forgets is an error at the datapath's Go
// line, not a silent 0.
func TestForgottenResultField(t *testing.T) {
	err := build(toyStep(map[string]bool{"count": true}, "amount"))
	if err == nil {
		t.Fatal("a datapath without result wrapped was accepted")
	}
	want := `build: module toy: the datapath does not drive result field "wrapped": every result field needs a value`
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to contain %q", err, want)
	}
	// the location is the line that defines the datapath function
	src, rerr := os.ReadFile("connpipe_test.go")
	if rerr != nil {
		t.Fatal(rerr)
	}
	line := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "return func(st Step) Outcome {") {
			line = i + 1
		}
	}
	if at := "blocks/connpipe/connpipe_test.go:" + strconv.Itoa(line) + ": "; !strings.HasPrefix(err.Error(), at) {
		t.Errorf("error %q is not located at the datapath function, %s", err, at)
	}
	if _, ok := err.(hdlgen.Errors); !ok {
		t.Errorf("error is a %T, not hdlgen.Errors", err)
	}
}

// An event field the block does not have is an error at the line that
// reads it.
func TestMissingEventField(t *testing.T) {
	err := build(toyStep(map[string]bool{"count": true, "wrapped": true}, "amout"))
	if err == nil {
		t.Fatal("a datapath reading event field amout was accepted")
	}
	found := false
	for _, l := range strings.Split(err.Error(), "\n") {
		found = found || strings.HasPrefix(l, "blocks/connpipe/connpipe_test.go:") && strings.HasSuffix(l, `the event has no field "amout" (fields: amount)`)
	}
	if !found {
		t.Errorf("error %q has no line located in the datapath for the missing field", err)
	}
}

// toyMerge folds an add into a pending add while the amounts' sum fits.
func toyMerge(slots int) *Merge {
	return &Merge{Slots: slots, CountW: 4,
		Fold: func(a, b MergeEvent) hdlgen.Expr {
			fits := a.Fields.F("amount").Le(b.Fields.F("amount").Not()) // a + b <= 255
			return a.Kind.EqC(1).And(b.Kind.EqC(1)).And(fits)
		},
		Combine: func(a, b MergeEvent) hdlgen.Record {
			return hdlgen.NewRecord("merged").Set("amount", a.Fields.F("amount").Add(b.Fields.F("amount")))
		},
	}
}

// The merging shell elaborates at every depth, with and without a merge
// rule and with the table port, and adds m_result_members.
func TestMergingShellBuilds(t *testing.T) {
	for _, depth := range []int{1, 2, 5} {
		for _, table := range []bool{false, true} {
			for _, rule := range []bool{false, true} {
				s := toySpec()
				s.Depth, s.Table, s.Merge = depth, table, toyMerge(4)
				if !rule {
					s.Merge.Fold, s.Merge.Combine = nil, nil
				}
				m := hdlgen.NewModule("toy", "")
				if err := Build(m, s, toyStep(map[string]bool{"count": true, "wrapped": true}, "amount")); err != nil {
					t.Fatalf("depth %d table %v rule %v: %v", depth, table, rule, err)
				}
				if _, err := hdlgen.Elaborate(m); err != nil {
					t.Fatalf("depth %d table %v rule %v: %v", depth, table, rule, err)
				}
				found := false
				for _, p := range m.Ports() {
					found = found || p.Name() == "m_result_members"
				}
				if !found {
					t.Errorf("depth %d: no m_result_members port", depth)
				}
			}
		}
	}
}
