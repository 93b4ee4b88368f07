package toolexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Environment variables configuring web_search. SearXNG is preferred when
// both backends are configured; Brave is tried when SearXNG fails.
const (
	SearXNGURLEnv = "MELMUX_SEARXNG_URL"
	BraveKeyEnv   = "BRAVE_API_KEY"
	// BraveURLEnv overrides the Brave endpoint (tests point it at a local server).
	BraveURLEnv     = "MELMUX_BRAVE_URL"
	defaultBraveURL = "https://api.search.brave.com/res/v1/web/search"
	searchMax       = 10
	searchBodyLimit = 4 << 20
)

// ErrNoSearchBackend is returned when neither backend is configured.
var ErrNoSearchBackend = errors.New("web_search is not configured: set MELMUX_SEARXNG_URL to a SearXNG instance (with the JSON format enabled) or BRAVE_API_KEY to a Brave Search API key")

type searchHit struct {
	Title, URL, Snippet string
}

func (e *Executor) httpClient() *http.Client {
	if e.HTTPClient != nil {
		return e.HTTPClient
	}
	return &http.Client{Timeout: 30 * time.Second}
}

func (e *Executor) webSearch(ctx context.Context, a args) Result {
	query := strings.TrimSpace(a.str("query"))
	if query == "" {
		return errResult("web_search: query is empty")
	}
	searx := strings.TrimSpace(e.getenv(SearXNGURLEnv))
	brave := strings.TrimSpace(e.getenv(BraveKeyEnv))
	if searx == "" && brave == "" {
		return errResult("web_search: %v", ErrNoSearchBackend)
	}
	var errs []string
	if searx != "" {
		hits, err := e.searchSearXNG(ctx, searx, query)
		if err == nil {
			return Result{Text: formatHits(query, "SearXNG", hits)}
		}
		errs = append(errs, err.Error())
	}
	if brave != "" {
		endpoint := strings.TrimSpace(e.getenv(BraveURLEnv))
		if endpoint == "" {
			endpoint = defaultBraveURL
		}
		hits, err := e.searchBrave(ctx, endpoint, brave, query)
		if err == nil {
			return Result{Text: formatHits(query, "Brave", hits)}
		}
		errs = append(errs, err.Error())
	}
	return errResult("web_search: %s", strings.Join(errs, "; "))
}

func (e *Executor) searchSearXNG(ctx context.Context, base, query string) ([]searchHit, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("SearXNG: %s=%q is not an http(s) URL", SearXNGURLEnv, base)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/search"
	u.RawQuery = url.Values{"q": {query}, "format": {"json"}}.Encode()
	var body struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := e.getJSON(ctx, u.String(), nil, &body); err != nil {
		return nil, fmt.Errorf("SearXNG at %s: %w", base, err)
	}
	hits := make([]searchHit, 0, len(body.Results))
	for _, r := range body.Results {
		hits = append(hits, searchHit{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return hits, nil
}

func (e *Executor) searchBrave(ctx context.Context, endpoint, key, query string) ([]searchHit, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("Brave: endpoint %q is not an http(s) URL", endpoint)
	}
	u.RawQuery = url.Values{"q": {query}, "count": {fmt.Sprint(searchMax)}}.Encode()
	var body struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	hdr := http.Header{"X-Subscription-Token": {key}, "Accept": {"application/json"}}
	if err := e.getJSON(ctx, u.String(), hdr, &body); err != nil {
		return nil, fmt.Errorf("Brave Search: %w", err)
	}
	hits := make([]searchHit, 0, len(body.Web.Results))
	for _, r := range body.Web.Results {
		hits = append(hits, searchHit{Title: r.Title, URL: r.URL, Snippet: r.Description})
	}
	return hits, nil
}

func (e *Executor) getJSON(ctx context.Context, target string, hdr http.Header, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	for k, vals := range hdr {
		req.Header[k] = vals
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	req.Header.Set("User-Agent", "melmux-web-search/1")
	resp, err := e.httpClient().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, searchBodyLimit))
	if err != nil {
		return fmt.Errorf("reading response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(data))
		hint := ""
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			hint = " (check the API key, or that the instance allows format=json)"
		case http.StatusTooManyRequests:
			hint = " (rate limited; try again later)"
		}
		return fmt.Errorf("HTTP %d%s: %s", resp.StatusCode, hint, clip(msg, 200))
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("response is not the expected JSON: %v", err)
	}
	return nil
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// plain strips the markup search APIs put in snippets (<strong>, entities).
func plain(s string) string {
	s = html.UnescapeString(tagRE.ReplaceAllString(s, ""))
	return strings.Join(strings.Fields(s), " ")
}

func formatHits(query, backend string, hits []searchHit) string {
	if len(hits) == 0 {
		return fmt.Sprintf("no results for %q (%s)", query, backend)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "results for %q (%s):\n", query, backend)
	for i, h := range hits {
		if i == searchMax {
			break
		}
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, plain(h.Title), h.URL)
		if s := plain(h.Snippet); s != "" {
			fmt.Fprintf(&b, "   %s\n", clip(s, 400))
		}
	}
	return b.String()
}
