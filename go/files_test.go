package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func setupFilesDir(t *testing.T, scenarioName string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "files")
	if r := runBench(t, nil, "setup", scenarioName, "--dir", dir); r.code != 0 {
		t.Fatalf("setup: exit %d: %s", r.code, r.stderr)
	}
	return dir
}

func TestFilesSetup(t *testing.T) {
	t.Parallel()
	dir := setupFilesDir(t, "files-read")
	var total int64
	for k := range 20 {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("file_%02d.txt", k)))
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Repeat(strings.Repeat("0", 63)+"\n", 3*(k+1))
		if string(b) != want {
			t.Errorf("file %d: %d bytes, want %d lines of 63 zeros", k, len(b), 3*(k+1))
		}
		total += int64(len(b))
	}
	if total != 40320 {
		t.Errorf("total size %d, want 40320", total)
	}
	// Setup again replaces the directory, appended data and all.
	os.WriteFile(filepath.Join(dir, "file_00.txt"), []byte("x"), 0o644)
	if r := runBench(t, nil, "setup", "files-rw", "--dir", dir); r.code != 0 {
		t.Fatalf("second setup: exit %d: %s", r.code, r.stderr)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "file_00.txt")); fi.Size() != 192 {
		t.Errorf("file_00.txt after second setup: %d bytes, want 192", fi.Size())
	}
}

func TestFilesSetupRefusesForeignDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keep := filepath.Join(dir, "precious.txt")
	os.WriteFile(keep, []byte("data"), 0o644)
	r := runBench(t, nil, "setup", "files-read", "--dir", dir)
	if r.code != exitFailed || !strings.Contains(r.stderr, "precious.txt") {
		t.Fatalf("exit %d, stderr %q; want exit 1 naming precious.txt", r.code, r.stderr)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("setup removed a file it did not make: %v", err)
	}
}

func TestFilesReadChecksum(t *testing.T) {
	t.Parallel()
	dir := setupFilesDir(t, "files-read")
	for _, tasks := range []int{10, 100} {
		var want uint64
		for _, d := range minstd(tasks) {
			want += 192 * (d%20 + 1) // file k: 3(k+1) lines of 64 bytes
		}
		rec := benchRecord(t, nil, "files-read", "--tasks", fmt.Sprint(tasks), "--dir", dir)
		if got := uintField(t, rec, "checksum"); got != want {
			t.Errorf("tasks %d: checksum = %d, want %d", tasks, got, want)
		}
		if got := uintField(t, rec, "metrics", "bytes_read"); got != want {
			t.Errorf("tasks %d: bytes_read = %d, want %d", tasks, got, want)
		}
		if p := uintField(t, rec, "runtime", "open_permits"); p < 1 || p > 4096 {
			t.Errorf("open_permits = %d", p)
		}
	}
}

func TestFilesRWChecksum(t *testing.T) {
	t.Parallel()
	for _, tasks := range []int{10, 100} {
		t.Run(fmt.Sprintf("tasks=%d", tasks), func(t *testing.T) {
			t.Parallel()
			dir := setupFilesDir(t, "files-rw")
			var appends uint64
			perFile := map[uint64]int64{}
			for _, d := range minstd(tasks) {
				if k := d % 20; k%2 == 0 {
					appends++
					perFile[k]++
				}
			}
			rec := benchRecord(t, nil, "files-rw", "--tasks", fmt.Sprint(tasks), "--dir", dir)
			if got, want := uintField(t, rec, "checksum"), 40320+16*appends; got != want {
				t.Errorf("checksum = %d, want %d", got, want)
			}
			if got := uintField(t, rec, "metrics", "appends"); got != appends {
				t.Errorf("metrics.appends = %d, want %d", got, appends)
			}
			// The appends really are on disk, each file with its own count.
			for k := range uint64(20) {
				b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("file_%02d.txt", k)))
				if err != nil {
					t.Fatal(err)
				}
				if n := int64(strings.Count(string(b), "Appended string\n")); n != perFile[k] {
					t.Errorf("file %d has %d appended lines, want %d", k, n, perFile[k])
				}
			}
		})
	}
}

func TestFilesMissingDirFails(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "nope")
	for _, sc := range []string{"files-read", "files-rw"} {
		r := runBench(t, nil, sc, "--tasks", "5", "--dir", missing)
		if r.code != exitFailed || !strings.Contains(r.stderr, missing) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and one line naming %s", sc, r.code, r.stdout, r.stderr, missing)
		}
	}
}

func TestFilesMissingFileFails(t *testing.T) {
	t.Parallel()
	dir := setupFilesDir(t, "files-read")
	os.Remove(filepath.Join(dir, "file_04.txt"))
	r := runBench(t, nil, "files-read", "--tasks", "5", "--dir", dir)
	if r.code != exitFailed || !strings.Contains(r.stderr, "file_04.txt") {
		t.Fatalf("exit %d, stderr %q; want exit 1 naming file_04.txt", r.code, r.stderr)
	}
}
