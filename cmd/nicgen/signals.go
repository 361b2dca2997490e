package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// A signal (SIGINT, SIGTERM, SIGHUP) stops nicgen without leaving an
// output half written: the temporary files being written are removed, and
// a generate that is renaming its files into place finishes that first
// (a few milliseconds), so that its folders hold the earlier outputs or
// the new ones, whole.
var (
	tempsMu sync.Mutex
	temps   = map[string]bool{} // temporary files not yet renamed or removed
	// renaming is held while generate renames its files into place and
	// removes the stale ones
	renaming sync.Mutex
)

// createTemp creates a temporary file in dir and records it for removal
// on a signal; the record and the file come into being together.
func createTemp(dir string) (*os.File, error) {
	tempsMu.Lock()
	defer tempsMu.Unlock()
	f, err := os.CreateTemp(dir, ".nicgen-*")
	if err == nil {
		temps[f.Name()] = true
	}
	return f, err
}

// tempDone forgets a temporary file that was renamed or removed.
func tempDone(name string) {
	tempsMu.Lock()
	delete(temps, name)
	tempsMu.Unlock()
}

// stopOnSignals makes the first SIGINT, SIGTERM or SIGHUP wait for a
// generate's renames, remove the temporary files and exit with status
// 128 + the signal's number.
func stopOnSignals(stderr io.Writer) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-ch
		renaming.Lock()
		tempsMu.Lock()
		for t := range temps {
			os.Remove(t)
		}
		fmt.Fprintf(stderr, "nicgen: stopped by %v; every output is as it was or written whole\n", s)
		code := 1
		if n, ok := s.(syscall.Signal); ok {
			code = 128 + int(n)
		}
		os.Exit(code)
	}()
}
