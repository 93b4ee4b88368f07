package orchestrator

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/melmux/melmux/internal/config/agentcfg"
)

// unreachable is an address where nothing listens: a port taken and
// released, so the Ollama look fails at once.
func unreachable(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestResolvePrecedence(t *testing.T) {
	noOllama := unreachable(t)
	cases := []struct {
		name  string
		flags Settings
		cfg   agentcfg.Agent
		env   map[string]string
		want  Settings
	}{
		{
			name: "the relay URL alone chooses the relay",
			env:  map[string]string{"MELMUX_RELAY_URL": "https://relay.example/v1/agent", "MELMUX_RELAY_TOKEN": "tok"},
			want: Settings{Provider: "relay", Model: DefaultRelayModel, BaseURL: "https://relay.example/v1/agent", KeyEnv: "MELMUX_RELAY_TOKEN", Key: "tok"},
		},
		{
			name: "a relay needs no token",
			env:  map[string]string{"MELMUX_RELAY_URL": "http://127.0.0.1:9/r"},
			want: Settings{Provider: "relay", Model: DefaultRelayModel, BaseURL: "http://127.0.0.1:9/r", KeyEnv: "MELMUX_RELAY_TOKEN"},
		},
		{
			name: "the relay before Anthropic before OpenAI",
			env:  map[string]string{"MELMUX_RELAY_URL": "http://r/x", "ANTHROPIC_API_KEY": "ak", "OPENAI_API_KEY": "ok"},
			want: Settings{Provider: "relay", Model: DefaultRelayModel, BaseURL: "http://r/x", KeyEnv: "MELMUX_RELAY_TOKEN"},
		},
		{
			name: "Anthropic before OpenAI",
			env:  map[string]string{"ANTHROPIC_API_KEY": "ak", "OPENAI_API_KEY": "ok"},
			want: Settings{Provider: "anthropic", Model: DefaultAnthropicModel, BaseURL: DefaultAnthropicBaseURL, KeyEnv: "ANTHROPIC_API_KEY", Key: "ak"},
		},
		{
			name: "an OpenAI base URL alone: a local server needs no key",
			env:  map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"},
			want: Settings{Provider: "openai", Model: DefaultOpenAIModel, BaseURL: "http://127.0.0.1:8000/v1", KeyEnv: "OPENAI_API_KEY"},
		},
		{
			name: "the environment's provider and model over detection and the config",
			env:  map[string]string{"MELMUX_AGENT_PROVIDER": "OpenAI", "MELMUX_AGENT_MODEL": "gpt-env", "ANTHROPIC_API_KEY": "ak", "OPENAI_API_KEY": "ok"},
			cfg:  agentcfg.Agent{Provider: "openai", Model: "gpt-cfg"},
			want: Settings{Provider: "openai", Model: "gpt-env", BaseURL: DefaultOpenAIBaseURL, KeyEnv: "OPENAI_API_KEY", Key: "ok"},
		},
		{
			name:  "flags over everything",
			flags: Settings{Provider: "anthropic", Model: "claude-flag", BaseURL: "http://proxy:1/", KeyEnv: "MY_KEY"},
			env:   map[string]string{"MELMUX_AGENT_PROVIDER": "relay", "MELMUX_AGENT_MODEL": "m-env", "ANTHROPIC_BASE_URL": "http://env:2", "MY_KEY": "mine", "ANTHROPIC_API_KEY": "theirs"},
			cfg:   agentcfg.Agent{Provider: "anthropic", Model: "m-cfg", BaseURL: "http://cfg:3", KeyEnv: "CFG_KEY"},
			want:  Settings{Provider: "anthropic", Model: "claude-flag", BaseURL: "http://proxy:1/", KeyEnv: "MY_KEY", Key: "mine"},
		},
		{
			name: "the config when the environment names nothing",
			env:  map[string]string{"CFG_KEY": "ck", "OLLAMA_HOST": noOllama},
			cfg:  agentcfg.Agent{Provider: "openai", Model: "qwen3", BaseURL: "http://127.0.0.1:11434/v1", KeyEnv: "CFG_KEY"},
			want: Settings{Provider: "openai", Model: "qwen3", BaseURL: "http://127.0.0.1:11434/v1", KeyEnv: "CFG_KEY", Key: "ck"},
		},
		{
			name: "the environment's base URL over the config's",
			env:  map[string]string{"MELMUX_AGENT_PROVIDER": "openai", "OPENAI_BASE_URL": "http://env:1/v1"},
			cfg:  agentcfg.Agent{Provider: "openai", BaseURL: "http://cfg:1/v1"},
			want: Settings{Provider: "openai", Model: DefaultOpenAIModel, BaseURL: "http://env:1/v1", KeyEnv: "OPENAI_API_KEY"},
		},
		{
			name: "a provider in the config outranks a key exported for another tool",
			env:  map[string]string{"ANTHROPIC_API_KEY": "ak"},
			cfg:  agentcfg.Agent{Provider: "openai", Model: "qwen3", BaseURL: "http://127.0.0.1:11434/v1", KeyEnv: "CFG_KEY"},
			want: Settings{Provider: "openai", Model: "qwen3", BaseURL: "http://127.0.0.1:11434/v1", KeyEnv: "CFG_KEY"},
		},
		{
			name:  "the config's model and base are not another provider's",
			env:   map[string]string{"ANTHROPIC_API_KEY": "ak"},
			flags: Settings{Provider: "anthropic"},
			cfg:   agentcfg.Agent{Provider: "openai", Model: "qwen3", BaseURL: "http://127.0.0.1:11434/v1", KeyEnv: "CFG_KEY"},
			want:  Settings{Provider: "anthropic", Model: DefaultAnthropicModel, BaseURL: DefaultAnthropicBaseURL, KeyEnv: "ANTHROPIC_API_KEY", Key: "ak"},
		},
		{
			name: "a config without a provider lends its model to any",
			env:  map[string]string{"OPENAI_API_KEY": "ok"},
			cfg:  agentcfg.Agent{Model: "gpt-cfg"},
			want: Settings{Provider: "openai", Model: "gpt-cfg", BaseURL: DefaultOpenAIBaseURL, KeyEnv: "OPENAI_API_KEY", Key: "ok"},
		},
		{
			name: "a base URL alone speaks OpenAI",
			env:  map[string]string{"OLLAMA_HOST": noOllama},
			cfg:  agentcfg.Agent{BaseURL: "http://127.0.0.1:8080/v1"},
			want: Settings{Provider: "openai", Model: DefaultOpenAIModel, BaseURL: "http://127.0.0.1:8080/v1", KeyEnv: "OPENAI_API_KEY"},
		},
		{
			name: "the key variable named in the environment",
			env:  map[string]string{"MELMUX_AGENT_PROVIDER": "openai", "MELMUX_AGENT_KEY_ENV": "OTHER", "OTHER": "k2", "OPENAI_API_KEY": "k1"},
			want: Settings{Provider: "openai", Model: DefaultOpenAIModel, BaseURL: DefaultOpenAIBaseURL, KeyEnv: "OTHER", Key: "k2"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(context.Background(), c.flags, c.cfg, envOf(c.env), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	cases := []struct {
		name  string
		flags Settings
		cfg   agentcfg.Agent
		env   map[string]string
		says  []string
	}{
		{"a provider flag that is none", Settings{Provider: "gemini"}, agentcfg.Agent{}, nil,
			[]string{`--provider "gemini" is not a provider (providers: relay, openai, anthropic)`}},
		{"a provider variable that is none", Settings{}, agentcfg.Agent{}, map[string]string{"MELMUX_AGENT_PROVIDER": "gpt"},
			[]string{`$MELMUX_AGENT_PROVIDER "gpt" is not a provider`}},
		{"OpenAI without its key", Settings{Provider: "openai"}, agentcfg.Agent{}, nil,
			[]string{"openai at https://api.openai.com/v1 needs an API key: set $OPENAI_API_KEY"}},
		{"Anthropic without the key of its variable", Settings{Provider: "anthropic"}, agentcfg.Agent{KeyEnv: "WORK_KEY"}, map[string]string{"ANTHROPIC_API_KEY": "x"},
			[]string{"needs an API key: set $WORK_KEY"}},
		{"the relay without a URL", Settings{Provider: "relay"}, agentcfg.Agent{}, nil,
			[]string{"the relay needs its URL: set $MELMUX_RELAY_URL"}},
		{"a base URL that is not one", Settings{}, agentcfg.Agent{}, map[string]string{"OPENAI_BASE_URL": "localhost:8000"},
			[]string{`$OPENAI_BASE_URL "localhost:8000" is not an http:// or https:// URL`}},
		{"a key variable that is a key", Settings{Provider: "openai", KeyEnv: "sk-abc def"}, agentcfg.Agent{}, nil,
			[]string{"--key-env", "must be the name of an environment variable"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Resolve(context.Background(), c.flags, c.cfg, envOf(c.env), nil)
			if !errors.Is(err, ErrNotConfigured) {
				t.Fatalf("err = %v, want ErrNotConfigured", err)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%q does not say %q", err, s)
				}
			}
		})
	}
}

// fakeOllama answers GET /api/tags with models.
func fakeOllama(t *testing.T, tags string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(tags))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestResolveFindsOllama(t *testing.T) {
	host := fakeOllama(t, `{"models":[{"name":"qwen3:latest","model":"qwen3:latest"},{"name":"llama3.2:latest"}]}`)
	got, err := Resolve(context.Background(), Settings{}, agentcfg.Agent{}, envOf(map[string]string{"OLLAMA_HOST": host}), nil)
	want := Settings{Provider: "openai", Model: "qwen3:latest", BaseURL: host + "/v1", KeyEnv: "OPENAI_API_KEY"}
	if err != nil || got != want {
		t.Fatalf("got %+v, %v; want %+v", got, err, want)
	}
	// A model named anywhere is kept.
	got, err = Resolve(context.Background(), Settings{Model: "llama3.2:latest"}, agentcfg.Agent{}, envOf(map[string]string{"OLLAMA_HOST": host}), nil)
	if err != nil || got.Model != "llama3.2:latest" {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestResolveOllamaWithoutModels(t *testing.T) {
	host := fakeOllama(t, `{"models":[]}`)
	_, err := Resolve(context.Background(), Settings{}, agentcfg.Agent{}, envOf(map[string]string{"OLLAMA_HOST": host}), nil)
	if !errors.Is(err, ErrNotConfigured) || !strings.Contains(err.Error(), "has no models: pull one (ollama pull qwen3)") {
		t.Fatalf("err = %v", err)
	}
}

func TestResolveNothingConfigured(t *testing.T) {
	addr := unreachable(t)
	_, err := Resolve(context.Background(), Settings{}, agentcfg.Agent{}, envOf(map[string]string{"OLLAMA_HOST": addr}), nil)
	if !errors.Is(err, ErrNotConfigured) {
		t.Fatalf("err = %v", err)
	}
	for _, s := range []string{"no Ollama answered at http://" + addr, "MELMUX_RELAY_URL", "MELMUX_RELAY_TOKEN", "ANTHROPIC_API_KEY",
		"OPENAI_API_KEY", "OPENAI_BASE_URL", "[agent]", `provider = "openai"`, "base_url", "api_key_env", "ollama pull"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the message does not mention %s:\n%s", s, err)
		}
	}
}

func TestOllamaHost(t *testing.T) {
	cases := map[string]string{
		"":                       "http://127.0.0.1:11434",
		"0.0.0.0":                "http://127.0.0.1:11434",
		"0.0.0.0:9999":           "http://127.0.0.1:9999",
		"gpu-box":                "http://gpu-box:11434",
		"http://gpu-box:8080/":   "http://gpu-box:8080",
		"https://ollama.example": "https://ollama.example:443",
		"[::]:11434":             "http://[::1]:11434",
	}
	for in, want := range cases {
		if got := ollamaHost(in); got != want {
			t.Errorf("ollamaHost(%q) = %q, want %q", in, got, want)
		}
	}
}

// Env carries the settings to another process: resolved there from that
// environment alone, over a config and inherited variables that say
// otherwise, they come out the same.
func TestEnvRoundTrip(t *testing.T) {
	for _, s := range []Settings{
		{Provider: "relay", Model: "default", BaseURL: "https://relay.example/x", KeyEnv: "MELMUX_RELAY_TOKEN", Key: "tok"},
		{Provider: "openai", Model: "qwen3", BaseURL: "http://127.0.0.1:11434/v1", KeyEnv: "OPENAI_API_KEY"},
		{Provider: "anthropic", Model: "claude-x", BaseURL: DefaultAnthropicBaseURL, KeyEnv: "WORK_KEY", Key: "wk"},
	} {
		env := map[string]string{"ANTHROPIC_API_KEY": "inherited", "OPENAI_API_KEY": "inherited", "MELMUX_RELAY_URL": "http://other/"}
		for _, kv := range s.Env() {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("%q is not KEY=VALUE", kv)
			}
			env[k] = v
		}
		cfg := agentcfg.Agent{Provider: "openai", Model: "cfg-model", KeyEnv: "CFG_KEY"}
		got, err := Resolve(context.Background(), Settings{}, cfg, envOf(env), nil)
		if err != nil || got != s {
			t.Errorf("from %v:\ngot  %+v, %v\nwant %+v", s.Env(), got, err, s)
		}
	}
}

func TestSettingsString(t *testing.T) {
	s := Settings{Provider: "openai", Model: "gpt-4.1", BaseURL: DefaultOpenAIBaseURL, KeyEnv: "OPENAI_API_KEY", Key: "sk-secret"}
	if got := s.String(); got != "openai, model gpt-4.1 at https://api.openai.com/v1 (key from $OPENAI_API_KEY)" || strings.Contains(got, "secret") {
		t.Errorf("String() = %q", got)
	}
}

func TestNewProviderRefuses(t *testing.T) {
	if _, err := NewProvider(Settings{Provider: "gemini", BaseURL: "http://x"}, nil); !errors.Is(err, ErrNotConfigured) || !strings.Contains(err.Error(), "relay, openai, anthropic") {
		t.Errorf("unknown provider: %v", err)
	}
	if _, err := NewProvider(Settings{Provider: "relay"}, nil); !errors.Is(err, ErrNotConfigured) || !strings.Contains(err.Error(), "$MELMUX_RELAY_URL") {
		t.Errorf("no URL: %v", err)
	}
}
