package config

import (
	"fmt"
	"math"
)

// Price is what a model costs per million tokens, in whatever currency the
// [prices] table is written in (the providers' lists are in US dollars).
type Price struct {
	Input  float64 // per million input (prompt) tokens
	Output float64 // per million output (completion) tokens
}

// Cost is what in and out tokens cost at p.
func (p Price) Cost(in, out int) float64 {
	return (float64(in)*p.Input + float64(out)*p.Output) / 1e6
}

// maxPrice bounds a price per million tokens: a larger one is a typo.
const maxPrice = 1e6

// parsePrices reads the [prices] table: model name = { input = N, output = N }.
func parsePrices(m map[string]any, out map[string]Price, bad func(key []string, format string, args ...any)) {
	for model, v := range m {
		key := []string{"prices", model}
		t, ok := v.(map[string]any)
		if !ok {
			bad(key, "must be a table { input = N, output = N } (prices per million tokens), not %s", tomlType(v))
			continue
		}
		var p Price
		have := map[string]bool{}
		good := true
		for k, fv := range t {
			var f *float64
			switch k {
			case "input":
				f = &p.Input
			case "output":
				f = &p.Output
			default:
				bad(key, "unknown key %q (known: input, output)", k)
				good = false
				continue
			}
			n, err := priceNumber(fv)
			if err != nil {
				bad(key, "%s: %v", k, err)
				good = false
				continue
			}
			*f, have[k] = n, true
		}
		if good && (!have["input"] || !have["output"]) {
			bad(key, "needs both input and output (prices per million tokens; 0 for free)")
			good = false
		}
		if good {
			out[model] = p
		}
	}
}

// priceNumber takes a price written as a float or a whole number.
func priceNumber(v any) (float64, error) {
	var n float64
	switch x := v.(type) {
	case float64:
		n = x
	case int64:
		n = float64(x)
	default:
		return 0, fmt.Errorf("must be a number (per million tokens), not %s", tomlType(v))
	}
	if n < 0 || n > maxPrice || math.IsNaN(n) {
		return 0, fmt.Errorf("%v is out of range (0 to %g per million tokens)", v, float64(maxPrice))
	}
	return n, nil
}
