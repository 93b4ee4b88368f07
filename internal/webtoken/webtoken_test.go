package webtoken

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTokensAreStoredHashedAndPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "melmux", "web-tokens.json")
	s := Open(path)
	secret, tok, err := s.Create("phone", true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, Prefix) || tok.Name != "phone" || !tok.ReadOnly {
		t.Fatalf("Create = %q, %+v", secret, tok)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) || strings.Contains(string(b), strings.TrimPrefix(secret, Prefix)) {
		t.Fatalf("the file holds the secret:\n%s", b)
	}
	if !strings.Contains(string(b), Hash(secret)) {
		t.Fatalf("the file lacks the secret's sha256:\n%s", b)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", st.Mode().Perm())
	}
	got, ok := s.Check(secret)
	if !ok || got.Name != "phone" {
		t.Fatalf("Check(secret) = %+v, %v", got, ok)
	}
	if _, ok := s.Check(secret + "x"); ok {
		t.Fatal("a wrong secret was taken")
	}
	if _, _, err := s.Create("phone", false); err == nil {
		t.Fatal("a second token of the same name was made")
	}
	if err := s.Revoke("phone"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Check(secret); ok {
		t.Fatal("a revoked token still logs in")
	}
	if s.Valid(tok.Name, tok.Hash) {
		t.Fatal("a revoked token's sessions stay valid")
	}
	if err := s.Revoke("phone"); err == nil {
		t.Fatal("revoking a missing token said nothing")
	}
}

func TestDefaultNamesAndList(t *testing.T) {
	s := Open(filepath.Join(t.TempDir(), "t.json"))
	for range 2 {
		if _, _, err := s.Create("", false); err != nil {
			t.Fatal(err)
		}
	}
	toks, err := s.List()
	if err != nil || len(toks) != 2 || toks[0].Name != "token-1" || toks[1].Name != "token-2" {
		t.Fatalf("List = %+v, %v", toks, err)
	}
	if _, _, err := s.Create("bad name", false); err == nil {
		t.Fatal("a name with a space was taken")
	}
}
