// Command nicgen generates the Verilog of NIC congestion-control and
// load-balancing blocks, checks it, proves it equal to golden models under
// Verilator and reports per-connection state budgets.
package main

import (
	"errors"
	"fmt"
	"io"
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
	stopOnSignals(os.Stderr)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command line with args, writing to stdout and stderr, and
// returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	out := &checkedWriter{w: stdout}
	root.SetOut(out)
	root.SetErr(stderr)
	err := root.Execute()
	if out.err != nil && (err == nil || errors.Is(err, out.err)) {
		// a command's output that did not reach standard output (a full
		// disk, a closed pipe) is a failure, not a success
		err = fmt.Errorf("writing standard output: %v", unwrapOS(out.err))
	}
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "nicgen:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// checkedWriter keeps the first error of its writes, which fmt.Fprint's
// callers do not look at.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err != nil {
		c.err = err
	}
	return n, err
}
