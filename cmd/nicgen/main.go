// Command nicgen generates the Verilog of NIC congestion-control and
// load-balancing blocks, checks it, proves it equal to golden models under
// Verilator and reports per-connection state budgets.
package main

import (
	"errors"
	"fmt"
	"os"
)

// exitError carries an exit status: 1 for a failed check, 2 for bad input.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, a ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, a...)}
}

func main() {
	root := newRootCmd()
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "nicgen:", err)
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}
