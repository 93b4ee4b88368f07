package modeltest

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	if got := split("abcdef", 3); !reflect.DeepEqual(got, []string{"ab", "cd", "ef"}) {
		t.Errorf("split abcdef 3 = %q", got)
	}
	if got := split("", 3); !reflect.DeepEqual(got, []string{""}) {
		t.Errorf("split empty = %q", got)
	}
	if got := split("ab", 5); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("split ab 5 = %q", got)
	}
	s := strings.Repeat("é→😀x", 50)
	for n := 1; n < 300; n++ {
		got := split(s, n)
		if len(got) > n || strings.Join(got, "") != s {
			t.Fatalf("split into %d: %d pieces, joined %v", n, len(got), strings.Join(got, "") == s)
		}
		for _, p := range got {
			if p == "" || !utf8.ValidString(p) {
				t.Fatalf("split into %d: piece %q", n, p)
			}
		}
	}
}
