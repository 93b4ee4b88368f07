package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/melmux/melmux/internal/config/agentcfg"
)

// Settings say which model endpoint the agent talks to.
type Settings struct {
	Provider string // relay | openai | anthropic
	Model    string
	BaseURL  string // relay: the whole endpoint URL; openai: the base, usually ending in /v1; anthropic: the base
	KeyEnv   string // the variable the key is read from (for messages and Env)
	Key      string // the key or token itself; "" sends none
}

// ErrNotConfigured is wrapped by Resolve's and NewProvider's errors when no
// usable endpoint is set; the message says which variables to set.
var ErrNotConfigured = errors.New("no model provider configured")

// Defaults. The models are the ones used when nothing names one: the relay
// picks its own for "default"; an Ollama found on the machine uses its first
// pulled model.
const (
	DefaultRelayModel       = "default"
	DefaultOpenAIModel      = "gpt-4.1"
	DefaultAnthropicModel   = "claude-sonnet-4-5"
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	DefaultOllamaHost       = "http://127.0.0.1:11434"
)

// The environment variables Resolve reads (with each provider's base URL and
// key variables: MELMUX_RELAY_URL and MELMUX_RELAY_TOKEN, OPENAI_BASE_URL and
// OPENAI_API_KEY, ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, and OLLAMA_HOST).
const (
	EnvProvider = "MELMUX_AGENT_PROVIDER"
	EnvModel    = "MELMUX_AGENT_MODEL"
	EnvKeyEnv   = "MELMUX_AGENT_KEY_ENV" // names the key's variable, as api_key_env does
)

// ollamaProbeTimeout bounds the look for a local Ollama: it answers at once
// when it runs, and a missing one must not delay the error.
const ollamaProbeTimeout = 2 * time.Second

func baseEnvOf(provider string) string {
	switch provider {
	case ProviderRelay:
		return "MELMUX_RELAY_URL"
	case ProviderAnthropic:
		return "ANTHROPIC_BASE_URL"
	}
	return "OPENAI_BASE_URL"
}

func defaultKeyEnv(provider string) string {
	switch provider {
	case ProviderRelay:
		return "MELMUX_RELAY_TOKEN"
	case ProviderAnthropic:
		return "ANTHROPIC_API_KEY"
	}
	return "OPENAI_API_KEY"
}

func defaultModel(provider string) string {
	switch provider {
	case ProviderRelay:
		return DefaultRelayModel
	case ProviderAnthropic:
		return DefaultAnthropicModel
	}
	return DefaultOpenAIModel
}

func defaultBaseURL(provider string) string {
	switch provider {
	case ProviderOpenAI:
		return DefaultOpenAIBaseURL
	case ProviderAnthropic:
		return DefaultAnthropicBaseURL
	}
	return "" // the relay has no public default
}

func (s Settings) keyEnv() string {
	if s.KeyEnv != "" {
		return s.KeyEnv
	}
	return defaultKeyEnv(s.Provider)
}

// Resolve decides the settings: flags over the environment over the
// [agent] table over what is found. The provider, when none is named (flag,
// $MELMUX_AGENT_PROVIDER, [agent] provider), is relay when $MELMUX_RELAY_URL
// is set, anthropic when $ANTHROPIC_API_KEY is, openai when $OPENAI_API_KEY
// or $OPENAI_BASE_URL is, else openai when a base URL alone is given, else a local Ollama (at $OLLAMA_HOST or
// http://127.0.0.1:11434) spoken to as openai. The table's model, base_url
// and api_key_env count only when its provider is the one chosen (or
// unset). getenv nil means os.Getenv; hc (nil = the default client) is used
// for the Ollama look only.
func Resolve(ctx context.Context, flags Settings, cfg agentcfg.Agent, getenv func(string) string, hc *http.Client) (Settings, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }

	provider, err := pickProvider(flags, cfg, env)
	if err != nil {
		return Settings{}, err
	}
	if provider == "" {
		return findOllama(ctx, flags, cfg, env, hc)
	}
	fromCfg := func(v string) string {
		if cfg.Provider == "" || cfg.Provider == provider {
			return v
		}
		return ""
	}
	s := Settings{Provider: provider}
	s.Model = firstSet(flags.Model, env(EnvModel), fromCfg(cfg.Model), defaultModel(provider))

	baseEnv := baseEnvOf(provider)
	switch {
	case flags.BaseURL != "":
		s.BaseURL, err = checkURL("--base-url", flags.BaseURL)
	case env(baseEnv) != "":
		s.BaseURL, err = checkURL("$"+baseEnv, env(baseEnv))
	default:
		s.BaseURL = firstSet(fromCfg(cfg.BaseURL), defaultBaseURL(provider))
	}
	if err != nil {
		return Settings{}, err
	}
	if s.BaseURL == "" {
		return Settings{}, fmt.Errorf("%w: the relay needs its URL: set $MELMUX_RELAY_URL (and $MELMUX_RELAY_TOKEN if it wants one), or base_url in the [agent] table of config.toml", ErrNotConfigured)
	}

	switch {
	case flags.KeyEnv != "":
		s.KeyEnv, err = checkVarName("--key-env", flags.KeyEnv)
	case env(EnvKeyEnv) != "":
		s.KeyEnv, err = checkVarName("$"+EnvKeyEnv, env(EnvKeyEnv))
	default:
		s.KeyEnv = firstSet(fromCfg(cfg.KeyEnv), defaultKeyEnv(provider))
	}
	if err != nil {
		return Settings{}, err
	}
	s.Key = firstSet(flags.Key, env(s.KeyEnv))
	// The public endpoints refuse every call without a key, so say so now;
	// a local or proxy endpoint may need none.
	if s.Key == "" && s.BaseURL == defaultBaseURL(provider) {
		return Settings{}, fmt.Errorf("%w: %s at %s needs an API key: set $%s (or name the variable that holds it with api_key_env in [agent])",
			ErrNotConfigured, provider, s.BaseURL, s.KeyEnv)
	}
	return s, nil
}

// pickProvider returns the named or detected provider, or "" when only a
// local Ollama is left to try.
func pickProvider(flags Settings, cfg agentcfg.Agent, env func(string) string) (string, error) {
	named := func(from, p string) (string, error) {
		p = strings.ToLower(strings.TrimSpace(p))
		if !slices.Contains(providers, p) {
			return "", fmt.Errorf("%w: %s %q is not a provider (providers: %s)", ErrNotConfigured, from, p, strings.Join(providers, ", "))
		}
		return p, nil
	}
	switch {
	case flags.Provider != "":
		return named("--provider", flags.Provider)
	case env(EnvProvider) != "":
		return named("$"+EnvProvider, env(EnvProvider))
	case cfg.Provider != "":
		// A provider written in the config is a choice; a key exported for
		// another tool (ANTHROPIC_API_KEY for Claude Code) is not.
		return named("[agent] provider", cfg.Provider)
	case env("MELMUX_RELAY_URL") != "":
		return ProviderRelay, nil
	case env("ANTHROPIC_API_KEY") != "":
		return ProviderAnthropic, nil
	case env("OPENAI_API_KEY") != "" || env("OPENAI_BASE_URL") != "":
		return ProviderOpenAI, nil
	case flags.BaseURL != "" || cfg.BaseURL != "":
		return ProviderOpenAI, nil // the most widely spoken protocol
	}
	return "", nil
}

// findOllama looks for a local Ollama and, when one answers, speaks to it
// as an OpenAI-compatible endpoint.
func findOllama(ctx context.Context, flags Settings, cfg agentcfg.Agent, env func(string) string, hc *http.Client) (Settings, error) {
	host := ollamaHost(env("OLLAMA_HOST"))
	models, err := ollamaModels(ctx, host, hc)
	if err != nil {
		return Settings{}, fmt.Errorf("%w, and no Ollama answered at %s (%v). Set one of:\n"+
			"  MELMUX_RELAY_URL (and MELMUX_RELAY_TOKEN)  for the Mel relay\n"+
			"  ANTHROPIC_API_KEY                          for Anthropic\n"+
			"  OPENAI_API_KEY                             for OpenAI\n"+
			"  OPENAI_BASE_URL                            for an OpenAI-compatible server (vLLM, llama.cpp: http://HOST:PORT/v1)\n"+
			"or name it in the [agent] table of config.toml:\n"+
			"  [agent]\n"+
			"  provider = \"openai\"   # relay | openai | anthropic\n"+
			"  model = \"MODEL\"\n"+
			"  base_url = \"http://127.0.0.1:8000/v1\"\n"+
			"  api_key_env = \"OPENAI_API_KEY\"\n"+
			"or start Ollama (ollama serve; ollama pull qwen3), or pass --provider and --model",
			ErrNotConfigured, host, err)
	}
	model := firstSet(flags.Model, env(EnvModel), cfg.Model)
	if model == "" {
		if len(models) == 0 {
			return Settings{}, fmt.Errorf("%w: Ollama at %s has no models: pull one (ollama pull qwen3) or name one with --model", ErrNotConfigured, host)
		}
		model = models[0]
	}
	return Settings{Provider: ProviderOpenAI, Model: model, BaseURL: host + "/v1", KeyEnv: defaultKeyEnv(ProviderOpenAI)}, nil
}

// ollamaHost reads $OLLAMA_HOST as Ollama itself does: a bare host, host:port
// or URL, with port 11434 by default and a listen-all address meaning this
// machine.
func ollamaHost(v string) string {
	if v == "" {
		return DefaultOllamaHost
	}
	if !strings.Contains(v, "://") {
		v = "http://" + v
	}
	u, err := url.Parse(v)
	if err != nil || u.Host == "" {
		return DefaultOllamaHost
	}
	host, port := u.Hostname(), u.Port()
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	if port == "" {
		port = "11434"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	u.Host = net.JoinHostPort(host, port)
	return strings.TrimRight(u.String(), "/")
}

// ollamaModels lists the models Ollama has pulled (GET /api/tags).
func ollamaModels(ctx context.Context, host string, hc *http.Client) ([]string, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, ollamaProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, host+"/api/tags", nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			return nil, ue.Err // the caller names the host
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /api/tags answered %s", resp.Status)
	}
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tags); err != nil {
		return nil, fmt.Errorf("GET /api/tags: not Ollama's answer: %v", err)
	}
	var names []string
	for _, m := range tags.Models {
		if n := firstSet(m.Name, m.Model); n != "" {
			names = append(names, n)
		}
	}
	return names, nil
}

func checkURL(from, v string) (string, error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%w: %s %q is not an http:// or https:// URL", ErrNotConfigured, from, v)
	}
	return v, nil
}

func checkVarName(from, v string) (string, error) {
	if strings.ContainsAny(v, "=$ \t") {
		return "", fmt.Errorf("%w: %s %q must be the name of an environment variable, such as OPENAI_API_KEY (not the key itself)", ErrNotConfigured, from, v)
	}
	return v, nil
}

// firstSet returns the first value that is not empty.
func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// Env lists the KEY=VALUE variables that make Resolve, in another process
// (a worker started in another pane), choose these same settings whatever
// that process's config or inherited environment say. It holds the key.
func (s Settings) Env() []string {
	vars := []string{
		EnvProvider + "=" + s.Provider,
		EnvModel + "=" + s.Model,
		baseEnvOf(s.Provider) + "=" + s.BaseURL,
	}
	keyEnv := s.keyEnv()
	vars = append(vars, EnvKeyEnv+"="+keyEnv)
	// Even when empty: a key the other process inherits must not reach an
	// endpoint this one sends none to.
	return append(vars, keyEnv+"="+s.Key)
}

// String describes the settings for a status line, without the key.
func (s Settings) String() string {
	key := "no key"
	if s.Key != "" {
		key = "key from $" + s.keyEnv()
	}
	return fmt.Sprintf("%s, model %s at %s (%s)", s.Provider, s.Model, s.BaseURL, key)
}
