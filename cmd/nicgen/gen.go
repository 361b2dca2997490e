package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/blocks/config"
	"github.com/nicgen/nicgen/blocks/control"
	"github.com/nicgen/nicgen/hdlgen"
)

// generated is one block's output files (relative path -> bytes).
type generated struct {
	block  blocks.Block
	design *hdlgen.Design
	top    string
	files  map[string][]byte // Verilog file name -> text, every module of the design
	// shared names the files of modules that other blocks of the same
	// generation use too: they are written once, under sharedDir.
	shared map[string]bool
	// ctl is the register map of the block's control wrapper, the top
	// when the configuration asks for it (hardware.control)
	ctl *control.Map
}

// sharedDir is the folder, beside the blocks' folders, of the modules that
// several blocks use (same name, same content: hdlgen.CheckShared).
const sharedDir = "shared"

// sources is the files of a block in compile order, as paths from the
// block's folder: shared modules first, then its own submodules (sorted),
// top last.
func (g generated) sources() []string {
	var shared, own []string
	for n := range g.files {
		switch {
		case n == g.top+".v":
		case g.shared[n]:
			shared = append(shared, "../"+sharedDir+"/"+n)
		default:
			own = append(own, n)
		}
	}
	sort.Strings(shared)
	sort.Strings(own)
	return append(append(shared, own...), g.top+".v")
}

// fileList is the .f file list of a block: submodules first, top last,
// each as its path from the folder generate runs in (dir is the block's
// folder as given on the command line).
func (g generated) fileList(dir string) []byte {
	var b strings.Builder
	for _, n := range g.sources() {
		b.WriteString(filepath.ToSlash(filepath.Join(dir, n)) + "\n")
	}
	return []byte(b.String())
}

// headerCommand and headerConfig are what every generated file records of
// how it was made: the command and the configuration, never a date. The
// embedded default records what it always has, so its output is unchanged.
func headerCommand(r *config.Resolved) string {
	if r.Embedded {
		return "nicgen generate"
	}
	return "nicgen generate -c " + headerSafe(r.File)
}

func headerConfig(r *config.Resolved) []string {
	if r.Embedded {
		return []string{r.Config.Name}
	}
	return []string{r.Config.Name, fmt.Sprintf("file %s, sha256 %s", headerSafe(r.File), r.SHA256[:16])}
}

// headerSafe keeps a path from ending a Verilog comment or a header line.
func headerSafe(path string) string {
	return strings.NewReplacer("*/", "*_/", "\n", " ", "\r", " ").Replace(filepath.ToSlash(path))
}

// generateBlocks elaborates and emits the named blocks of the configuration
// (all of its blocks when names is empty).
func generateBlocks(r *config.Resolved, names []string, locators bool) ([]generated, error) {
	sel, err := selectBlocks(r, names)
	if err != nil {
		return nil, err
	}
	var out []generated
	for _, b := range sel {
		var d *hdlgen.Design
		var mp *control.Map
		if r.Config.Control {
			var m *hdlgen.Module
			m, mp, err = b.BuildControl(r.Config)
			if err == nil {
				d, err = hdlgen.Elaborate(m)
			}
		} else {
			d, err = b.Elaborate(r.Config)
		}
		if err != nil {
			if pos, ok := r.BlockPos(b.Name); ok {
				return nil, fmt.Errorf("%s: block %q cannot be built:\n%w", pos, b.Name, err)
			}
			return nil, fmt.Errorf("block %s:\n%w", b.Name, err)
		}
		files := hdlgen.Emit(d, hdlgen.EmitOptions{
			Locators: locators,
			Command:  headerCommand(r),
			Config:   headerConfig(r),
		})
		out = append(out, generated{block: b, design: d, top: d.Top.Name(), files: files, shared: map[string]bool{}, ctl: mp})
	}
	if err := markShared(out); err != nil {
		return nil, err
	}
	return out, nil
}

// markShared checks that a module name means one module across the blocks
// of one generation (they are compiled together) and marks the modules that
// several blocks use, to be written once.
func markShared(out []generated) error {
	designs := make([]*hdlgen.Design, len(out))
	for i, g := range out {
		designs[i] = g.design
	}
	if err := hdlgen.CheckShared(designs...); err != nil {
		return fmt.Errorf("blocks %v:\n%w", blockNames(out), err)
	}
	for _, n := range hdlgen.Shared(designs...) {
		for _, g := range out {
			if _, ok := g.files[n+".v"]; ok {
				g.shared[n+".v"] = true
			}
		}
	}
	return nil
}

func blockNames(gens []generated) []string {
	n := make([]string, len(gens))
	for i, g := range gens {
		n[i] = g.block.Name
	}
	return n
}

// writeAtomic writes a file through a temporary file in the same folder and
// a rename, so a reader never sees half a file. A target that is a folder
// is an error, and no temporary file is left behind on any error.
// A symbolic link is written through (the file it names is replaced, the
// link stays), and so is a device, a FIFO or a socket (never renamed
// over: `-o /dev/null` as root must leave the device in place).
func writeAtomic(path string, data []byte) error {
	p, special, err := outputPath(path)
	if err != nil {
		return err
	}
	if special {
		return writeThrough(p, path, data)
	}
	tmp, err := writeTemp(p, data)
	if err != nil {
		return err
	}
	return renameOnto(tmp, p)
}

// checkWritable reports whether a file could be written at path: not a
// folder, and its folder exists or can be made and takes a new file (or,
// for a device, a FIFO or a socket, it opens for writing).
func checkWritable(path string) error {
	p, special, err := outputPath(path)
	if err != nil {
		return err
	}
	if special {
		f, err := openThrough(p, path)
		if err != nil {
			return err
		}
		return f.Close()
	}
	tmp, err := writeTemp(p, nil)
	if err != nil {
		return err
	}
	return os.Remove(tmp)
}

// outputPath is the file an output named path is written to: path itself,
// or the file its symbolic links lead to (a link that leads nowhere yet
// names the file to create). special is true for a device, a FIFO or a
// socket, which is written through and never replaced.
func outputPath(path string) (p string, special bool, err error) {
	p = path
	for range 40 {
		st, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return p, false, nil
		case err != nil:
			return "", false, fmt.Errorf("writing %s: %v", path, unwrapOS(err))
		case st.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(p)
			if err != nil {
				return "", false, fmt.Errorf("writing %s: %v", path, unwrapOS(err))
			}
			if !filepath.IsAbs(t) {
				t = filepath.Join(filepath.Dir(p), t)
			}
			p = t
		case st.Mode().IsRegular() || st.IsDir():
			return p, false, nil
		default:
			return p, true, nil
		}
	}
	return "", false, fmt.Errorf("writing %s: too many symbolic links", path)
}

// writeThrough writes data into an existing device, FIFO or socket p (named
// path by the user).
func writeThrough(p, path string, data []byte) error {
	f, err := openThrough(p, path)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("writing %s: %v", path, unwrapOS(werr))
	}
	return nil
}

// openThrough opens an existing device, FIFO or socket p (named path by
// the user) for writing, in place.
func openThrough(p, path string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %v", path, unwrapOS(err))
	}
	return f, nil
}

// createBeside opens a new temporary file in path's folder (made if
// needed), for a file to be renamed onto path; a path that is a folder is
// an error.
func createBeside(path string) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("writing %s: it is a folder; name a file", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("writing %s: %v", path, unwrapOS(err))
	}
	tmp, err := createTemp(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("writing %s: %v", path, unwrapOS(err))
	}
	return tmp, nil
}

// finishTemp closes a temporary file with the permissions of an output,
// removing it on an error.
func finishTemp(tmp *os.File, path string, werr error) error {
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		tempDone(tmp.Name())
		return fmt.Errorf("writing %s: %v", path, unwrapOS(werr))
	}
	return nil
}

// renameOnto moves a finished temporary file onto path, removing it on an
// error.
func renameOnto(tmp, path string) error {
	defer tempDone(tmp)
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %v", path, unwrapOS(err))
	}
	return nil
}

// writeTemp writes data to a new temporary file beside path and returns
// its name; on an error it removes it.
func writeTemp(path string, data []byte) (string, error) {
	tmp, err := createBeside(path)
	if err != nil {
		return "", err
	}
	_, werr := tmp.Write(data)
	if err := finishTemp(tmp, path, werr); err != nil {
		return "", err
	}
	return tmp.Name(), nil
}

// unwrapOS is the cause of a file-system error without the operation and
// path that the message names already.
func unwrapOS(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// outDirs are the folders generate writes and diff compares.
type outDirs struct {
	verilog     string // <block>/*.v, <block>.f, <block>.core
	constraints string // <block>.xdc, <block>.sdc
	datasheets  string // <block>.md
}

func (o outDirs) all() []string { return []string{o.verilog, o.constraints, o.datasheets} }

// outputFiles is every file generate writes, by path: per block the
// Verilog, a .f list and a FuseSoC core under verilog/<block>/, the timing
// constraints and the datasheet.
func outputFiles(r *config.Resolved, gens []generated, dirs outDirs) (map[string][]byte, error) {
	files, _, err := ownedOutputFiles(r, gens, dirs)
	return files, err
}

// ownedOutputFiles is outputFiles with the block that owns each file
// (sharedDir for the shared modules).
func ownedOutputFiles(r *config.Resolved, gens []generated, dirs outDirs) (map[string][]byte, map[string]string, error) {
	files, owner := map[string][]byte{}, map[string]string{}
	for _, g := range gens {
		dir := filepath.Join(dirs.verilog, g.block.Name)
		for n, b := range g.files {
			if g.shared[n] {
				p := filepath.Join(dirs.verilog, sharedDir, n)
				files[p], owner[p] = b, sharedDir // equal bytes from every block
			} else {
				files[filepath.Join(dir, n)] = b
			}
		}
		files[filepath.Join(dir, g.block.Name+".f")] = g.fileList(dir)
		files[filepath.Join(dir, g.block.Name+".core")] = fusesocCore(g, dir, dirs.constraints)
		if g.ctl != nil {
			files[filepath.Join(dir, g.top+".h")] = g.ctl.Header(append([]string{
				fmt.Sprintf("Generated by nicgen %s. Do not edit: regenerate.", hdlgen.Version),
				"Command: " + headerCommand(r)}, prefixed("Config: ", headerConfig(r))...))
		}
		for n, b := range constraintFiles(r, g) {
			files[filepath.Join(dirs.constraints, n)] = b
		}
		ds, err := blockDatasheet(r, g)
		if err != nil {
			return nil, nil, err
		}
		files[filepath.Join(dirs.datasheets, g.block.Name+".md")] = ds
		for p := range files {
			if _, ok := owner[p]; !ok {
				owner[p] = g.block.Name
			}
		}
	}
	return files, owner, nil
}

// manifestName is the file in the lock's folder where generate records
// what it wrote, by owning block (git ignores it, diff skips it).
const manifestName = ".nicgen.files"

// writeOwnedFiles writes every file as one transaction: each to a temporary
// file beside its target first, then, once all are written, each renamed
// onto its target. A failure while writing (a read-only folder, a full
// disk) removes the temporary files and leaves every target as it was.
// lockDir holds a lock file for the duration, so that two runs writing the
// same outputs cannot interleave (the second waits for the first).
//
// Once every file is in place, it removes the files an earlier generate
// into the same folders wrote and this one no longer does: of the blocks
// it writes (owner), or of any block when full (every block of the
// configuration). Only regular files under roots are removed.
func writeOwnedFiles(files map[string][]byte, owner map[string]string, full bool, lockDir string, roots []string) ([]string, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	// the folders this run creates: a refused write removes them again
	created := missingDirs(append([]string{filepath.Join(lockDir, ".nicgen.lock")}, paths...))
	unlock, err := lockFolder(lockDir)
	if err != nil {
		removeDirs(created, lockDir)
		return nil, err
	}
	defer func() { unlock() }()
	tmps := make([]string, 0, len(paths))
	cleanup := func() {
		for _, t := range tmps {
			os.Remove(t)
			tempDone(t)
		}
		unlock()
		unlock = func() {}
		removeDirs(created, lockDir)
	}
	for k, p := range paths {
		// an output of the tree is a file: a device, FIFO or socket in
		// its place is refused, a symbolic link written through
		q, special, err := outputPath(p)
		if err == nil && special {
			err = fmt.Errorf("writing %s: not a regular file (a device, FIFO or socket); remove it or choose another folder", p)
		}
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("%v; nothing was changed", err)
		}
		paths[k] = q
		t, err := writeTemp(q, files[p])
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("%v; nothing was changed", err)
		}
		tmps = append(tmps, t)
	}
	// a signal now waits until every file is in place and the stale ones
	// are gone
	renaming.Lock()
	defer renaming.Unlock()
	for i, p := range paths {
		if err := os.Rename(tmps[i], p); err != nil {
			tmps = tmps[i:]
			cleanup()
			return paths[:i], fmt.Errorf("writing %s: %v (%d of %d files were replaced)", p, unwrapOS(err), i, len(paths))
		}
		tempDone(tmps[i])
	}
	if owner == nil {
		return paths, nil
	}
	return paths, pruneStale(files, owner, full, lockDir, roots)
}

// pruneStale removes what the folder's manifest says an earlier generate
// wrote for the blocks of this one (or for any block, when full) and this
// one did not, and records this run's files in the manifest.
func pruneStale(files map[string][]byte, owner map[string]string, full bool, lockDir string, roots []string) error {
	man := filepath.Join(lockDir, manifestName)
	// the manifest names the files from the lock's folder, so that it
	// reads the same from any working folder and for any path to it
	base, err := filepath.Abs(lockDir)
	if err != nil {
		return err
	}
	old := map[string]string{}
	if b, err := os.ReadFile(man); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if o, p, ok := strings.Cut(line, "\t"); ok && !strings.HasPrefix(line, "#") {
				old[filepath.Join(base, filepath.FromSlash(p))] = o
			}
		}
	}
	ran := map[string]bool{}
	cur := map[string]string{}
	for p, o := range owner {
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		cur[abs], ran[o] = o, true
	}
	var absRoots []string
	for _, r := range roots {
		if a, err := filepath.Abs(r); err == nil {
			absRoots = append(absRoots, a+string(filepath.Separator))
		}
	}
	for p, o := range old {
		if _, ok := cur[p]; ok {
			continue
		}
		if !full && (!ran[o] || o == sharedDir) {
			cur[p] = o // another block's file, or a shared module another block may read
			continue
		}
		under := false
		for _, r := range absRoots {
			under = under || strings.HasPrefix(p, r)
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && under {
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("removing %s, which this configuration no longer generates: %v", p, unwrapOS(err))
			}
			os.Remove(filepath.Dir(p)) // its folder, if that left it empty
		}
	}
	keys := make([]string, 0, len(cur))
	for p := range cur {
		keys = append(keys, p)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# nicgen generate: the files it wrote, by block; the next generate into these folders removes those it no longer writes\n")
	for _, p := range keys {
		rel, err := filepath.Rel(base, p)
		if err != nil {
			return err
		}
		b.WriteString(cur[p] + "\t" + filepath.ToSlash(rel) + "\n")
	}
	return writeAtomic(man, []byte(b.String()))
}

// missingDirs is the folders above the paths that do not exist yet,
// deepest first.
func missingDirs(paths []string) []string {
	seen := map[string]bool{}
	var dirs []string
	for _, p := range paths {
		for d := filepath.Dir(p); !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
				break
			}
			dirs = append(dirs, d)
		}
	}
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	return dirs
}

// removeDirs removes the folders a refused write created, deepest first,
// with the lock file when it created the lock's folder; a folder that is
// not empty stays.
func removeDirs(dirs []string, lockDir string) {
	for _, d := range dirs {
		if d == lockDir {
			os.Remove(filepath.Join(d, ".nicgen.lock"))
		}
		os.Remove(d)
	}
}

// lockFolder takes an exclusive lock on dir/.nicgen.lock (created if
// needed; the file stays, empty) and returns its release.
func lockFolder(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output folder %s: %v", dir, unwrapOS(err))
	}
	path := filepath.Join(dir, ".nicgen.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %v", path, unwrapOS(err))
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %v", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// relDir is the slash path from one folder to another, when both are
// relative or both absolute.
func relDir(from, to string) (string, bool) {
	rel, err := filepath.Rel(from, to)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// prefixed puts p before every line.
func prefixed(p string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = p + l
	}
	return out
}
