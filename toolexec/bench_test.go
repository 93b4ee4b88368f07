package toolexec

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// goSrc is the tree the grep and find_files benchmarks search, the same one
// bench/toolexec_grep.sh gives ripgrep.
func goSrc(b *testing.B) string {
	dir := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("no Go source tree: %v", err)
	}
	return dir
}

// benchPatterns cover each matcher strategy: a pure literal, a regexp with a
// required literal, and one with none.
var benchPatterns = map[string]string{
	"literal":   "TODO",
	"required":  `func \w+Error\(`,
	"noliteral": `[A-Z][a-z]+[0-9]{3}`,
	"casefold":  `(?i)deadline`,
}

func BenchmarkGrepGoSrc(b *testing.B) {
	root := goSrc(b)
	for name, pattern := range benchPatterns {
		b.Run(name, func(b *testing.B) {
			m, err := newMatcher(pattern)
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				c, err := grepTree(context.Background(), root, m, 0)
				if err != nil {
					b.Fatal(err)
				}
				if i == 0 {
					b.ReportMetric(float64(c.total), "matches")
					b.ReportMetric(float64(c.searched), "files")
				}
			}
		})
	}
}

func BenchmarkFindFilesGoSrc(b *testing.B) {
	root := goSrc(b)
	for i := 0; i < b.N; i++ {
		files, err := findTree(context.Background(), root, "*_test.go", 0)
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.ReportMetric(float64(len(files)), "files")
		}
	}
}
