package hdlgen

import (
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
)

// Loc is the Go source position that created a hardware object. Every check
// error and every optional Verilog locator points at one, so a designer goes
// straight from a message to the line of the block that caused it.
type Loc struct {
	File string // path relative to the module root when inside it, else the base name
	Line int
}

func (l Loc) String() string {
	if l.File == "" {
		return "?"
	}
	return fmt.Sprintf("%s:%d", l.File, l.Line)
}

// hdlgenDir and moduleRoot are found from this file's own position so that
// locators do not depend on where the repository is checked out.
var hdlgenDir, moduleRoot = func() (string, string) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", ""
	}
	dir := filepath.Dir(file)
	return dir, filepath.Dir(dir)
}()

// modulePath is the import-path prefix seen in file names of -trimpath builds.
const modulePath = "github.com/nicgen/nicgen/"

// callerLoc returns the first stack frame outside package hdlgen (test files
// of the package count as outside: they play the role of a block).
func callerLoc() Loc {
	// A block declares thousands of signals, so this is cheap: the walk
	// asks for a few frames first (unwinding costs by the frame), and
	// what a frame's return address resolves to is kept (locCache).
	var pcs [32]uintptr
	for _, want := range []int{8, len(pcs)} {
		n := runtime.Callers(3, pcs[:want])
		for _, pc := range pcs[:n] {
			if l, ok := frameLoc(pc); ok {
				return l
			}
		}
		if n < want {
			break
		}
	}
	return Loc{}
}

// locCache maps a return address to frameLoc's answer for it.
var locCache sync.Map // uintptr -> frameAnswer

type frameAnswer struct {
	loc Loc
	ok  bool
}

// frameLoc is the position of the first frame outside package hdlgen
// among those of return address pc (more than one where calls were
// inlined), and whether there is one.
func frameLoc(pc uintptr) (Loc, bool) {
	if a, ok := locCache.Load(pc); ok {
		return a.(frameAnswer).loc, a.(frameAnswer).ok
	}
	var a frameAnswer
	frames := runtime.CallersFrames([]uintptr{pc})
	for {
		f, more := frames.Next()
		if f.File != "" && (filepath.Dir(f.File) != hdlgenDir || strings.HasSuffix(f.File, "_test.go")) {
			a = frameAnswer{Loc{File: relFile(f.File), Line: f.Line}, true}
			break
		}
		if !more {
			break
		}
	}
	locCache.Store(pc, a)
	return a.loc, a.ok
}

// FuncLoc is the Go line where a function value is defined: the place to
// blame for what the function returns (a block's datapath that forgets a
// result, for example).
func FuncLoc(f any) Loc {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Func || v.IsNil() {
		return Loc{}
	}
	fn := runtime.FuncForPC(v.Pointer())
	if fn == nil {
		return Loc{}
	}
	file, line := fn.FileLine(fn.Entry())
	return Loc{File: relFile(file), Line: line}
}

// Errorf is a build error at a location, in the form every check reports
// (for packages that build on hdlgen, such as a shell around a datapath).
func Errorf(loc Loc, module, format string, a ...any) error {
	return Errors{{Loc: loc, Pass: "build", Module: module, Msg: fmt.Sprintf(format, a...)}}
}

func relFile(file string) string {
	if strings.HasPrefix(file, modulePath) {
		return strings.TrimPrefix(file, modulePath)
	}
	if moduleRoot != "" {
		if rel, err := filepath.Rel(moduleRoot, file); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(file)
}

// Caller is the Go line skip frames above the function that calls it
// (Caller(0) is the line of the call to Caller itself): the line to blame
// for a misuse that a package building on hdlgen detects.
func Caller(skip int) Loc {
	_, file, line, ok := runtime.Caller(skip + 1)
	if !ok {
		return Loc{}
	}
	return Loc{File: relFile(file), Line: line}
}
