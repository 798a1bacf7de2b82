package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
)

// The file scenarios share one directory of benchFiles files: file k holds 3*(k+1)
// lines of 63 '0's and a newline, 40320 bytes in all.
const (
	benchFiles   = 20
	linesPerStep = 3
	lineLen      = 64
	appendedLine = "Appended string\n"
)

// benchFileName matches the names setup gives the files.
var benchFileName = regexp.MustCompile(`^file_\d\d\.txt$`)

func benchFilePath(dir string, k int) string {
	return filepath.Join(dir, fmt.Sprintf("file_%02d.txt", k))
}

func benchFileContent(k int) []byte {
	line := append(bytes.Repeat([]byte{'0'}, lineLen-1), '\n')
	return bytes.Repeat(line, linesPerStep*(k+1))
}

// setupFiles makes --dir afresh with its 20 files. It refuses to remove a directory
// holding anything it did not make, so a mistaken --dir cannot wipe real data.
func setupFiles(p params) error {
	dir := p.str("dir")
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !benchFileName.MatchString(e.Name()) {
			return fmt.Errorf("refusing to remove %s: it holds %s, which setup did not make", dir, e.Name())
		}
	}
	// The files setup made before are removed one by one and the directory kept, rather
	// than os.RemoveAll: Go 1.26's RemoveAll on Windows needs FileDispositionInformationEx,
	// which Wine 8 lacks ("Invalid function"); the result is the same.
	for _, e := range entries {
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for k := range benchFiles {
		if err := os.WriteFile(benchFilePath(dir, k), benchFileContent(k), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// benchFilePaths checks that setup has made dir and returns the paths of its files.
func benchFilePaths(scenarioName, dir string) ([]string, error) {
	hint := fmt.Sprintf("run `%s setup %s --dir %s` first", programName, scenarioName, dir)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("directory %s not found (%s)", dir, hint)
	}
	paths := make([]string, benchFiles)
	for k := range paths {
		paths[k] = benchFilePath(dir, k)
		if _, err := os.Stat(paths[k]); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s is missing (%s)", paths[k], hint)
			}
			return nil, err
		}
	}
	return paths, nil
}

// benchFilesSize is the total size of the 20 files.
func benchFilesSize(paths []string) (uint64, error) {
	var total uint64
	for _, path := range paths {
		fi, err := os.Stat(path)
		if err != nil {
			return 0, err
		}
		total += uint64(fi.Size())
	}
	return total, nil
}
