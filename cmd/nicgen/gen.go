package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nicgen/nicgen/blocks"
	"github.com/nicgen/nicgen/hdlgen"
)

// generated is one block's output files (relative path -> bytes).
type generated struct {
	block blocks.Block
	top   string
	files map[string][]byte // Verilog file name -> text
}

// fileList is the .f file list of a block: submodules first, top last.
func (g generated) fileList(dir string) []byte {
	var b strings.Builder
	names := make([]string, 0, len(g.files))
	for n := range g.files {
		if n != g.top+".v" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	names = append(names, g.top+".v")
	for _, n := range names {
		b.WriteString(filepath.ToSlash(filepath.Join(dir, n)) + "\n")
	}
	return []byte(b.String())
}

// generateBlocks elaborates and emits the named blocks (all when empty).
func generateBlocks(cfg blocks.Config, names []string, locators bool) ([]generated, error) {
	var sel []blocks.Block
	if len(names) == 0 {
		sel = blocks.All()
	} else {
		for _, n := range names {
			b, err := blocks.Lookup(n)
			if err != nil {
				return nil, usageErr("%v", err)
			}
			sel = append(sel, b)
		}
	}
	var out []generated
	for _, b := range sel {
		d, err := b.Elaborate(cfg)
		if err != nil {
			return nil, fmt.Errorf("block %s:\n%w", b.Name, err)
		}
		files := hdlgen.Emit(d, hdlgen.EmitOptions{
			Locators: locators,
			Command:  "nicgen generate",
			Config:   []string{cfg.Name},
		})
		out = append(out, generated{block: b, top: d.Top.Name(), files: files})
	}
	return out, nil
}

// writeAtomic writes a file through a temporary file in the same folder and
// a rename, so a reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".nicgen-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %v %v", path, werr, cerr)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// outputFiles is every file generate writes, by path: per block the
// Verilog and a .f list under verilogDir/<block>/, and the timing
// constraints under constraintsDir.
func outputFiles(cfg blocks.Config, gens []generated, verilogDir, constraintsDir string) map[string][]byte {
	files := map[string][]byte{}
	for _, g := range gens {
		dir := filepath.Join(verilogDir, g.block.Name)
		for n, b := range g.files {
			files[filepath.Join(dir, n)] = b
		}
		files[filepath.Join(dir, g.block.Name+".f")] = g.fileList(filepath.Join(filepath.Base(verilogDir), g.block.Name))
		for n, b := range constraintFiles(cfg, g) {
			files[filepath.Join(constraintsDir, n)] = b
		}
	}
	return files
}

// writeFiles writes every file atomically, in sorted order. Everything is
// generated in memory first, so a failing block leaves no file behind.
func writeFiles(files map[string][]byte) ([]string, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for i, p := range paths {
		if err := writeAtomic(p, files[p]); err != nil {
			return paths[:i], err
		}
	}
	return paths, nil
}
