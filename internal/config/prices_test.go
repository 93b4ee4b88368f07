package config

import (
	"math"
	"strings"
	"testing"
)

func TestPrices(t *testing.T) {
	src := "[prices]\n\"gpt-4.1\" = { input = 2.0, output = 8 }\n\"qwen3:14b\" = { input = 0, output = 0 }\n"
	cfg, err := Parse([]byte(src), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	p, ok := cfg.Prices["gpt-4.1"]
	if !ok || p != (Price{Input: 2, Output: 8}) {
		t.Fatalf("prices = %+v", cfg.Prices)
	}
	// 1.5M in at 2 + 250k out at 8 per million.
	if c := p.Cost(1_500_000, 250_000); math.Abs(c-5) > 1e-9 {
		t.Errorf("Cost = %v, want 5", c)
	}
	if cfg.Prices["qwen3:14b"] != (Price{}) {
		t.Errorf("a free model: %+v", cfg.Prices["qwen3:14b"])
	}
}

func TestPricesErrors(t *testing.T) {
	src := "[prices]\n\"gpt-4.1\" = { input = 2.0 }\nm2 = 3\nm3 = { input = \"2\", output = 1 }\nm4 = { input = -1, output = 1 }\nm5 = { input = 1, output = 1, cached = 0.5 }\n"
	_, err := Parse([]byte(src), "c.toml")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`c.toml:2: prices."gpt-4.1": needs both input and output (prices per million tokens; 0 for free)`,
		`c.toml:3: prices.m2: must be a table { input = N, output = N } (prices per million tokens), not an integer`,
		`c.toml:4: prices.m3: input: must be a number (per million tokens), not a string`,
		`c.toml:5: prices.m4: input: -1 is out of range (0 to 1e+06 per million tokens)`,
		`c.toml:6: prices.m5: unknown key "cached" (known: input, output)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
