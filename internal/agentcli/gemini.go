package agentcli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// GeminiKey is the API key the tests give Gemini CLI; the endpoint takes
// any key.
const GeminiKey = "melmux-test-gemini-key"

// GeminiEnv is the environment that points Gemini CLI at the endpoint at
// baseURL (its Gemini API client takes the base URL from
// GOOGLE_GEMINI_BASE_URL) with the API key.
func GeminiEnv(baseURL string) []string {
	return []string{
		"GOOGLE_GEMINI_BASE_URL=" + baseURL,
		"GEMINI_API_KEY=" + GeminiKey,
	}
}

// WriteGeminiHome writes home/.gemini so that Gemini CLI, started with
// HOME=home in any of the project directories, opens at its prompt: the
// API key chosen as the way to sign in (else it asks), the projects
// trusted (else it asks, then restarts), and nothing sent anywhere but the
// endpoint — no usage statistics, no update check (npm's registry is
// reachable, and an update would change the release under test).
func WriteGeminiHome(home string, projects ...string) error {
	trusted := map[string]string{}
	for _, p := range projects {
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("gemini home: project %s: %w", p, err)
		}
		trusted[abs] = "TRUST_FOLDER"
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			trusted[real] = "TRUST_FOLDER"
		}
	}
	settings := map[string]any{
		"security": map[string]any{"auth": map[string]string{"selectedType": "gemini-api-key"}},
		"privacy":  map[string]bool{"usageStatisticsEnabled": false},
		"general":  map[string]bool{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"ide":      map[string]bool{"hasSeenNudge": true},
	}
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("gemini home: %w", err)
	}
	for name, v := range map[string]any{"settings.json": settings, "trustedFolders.json": trusted} {
		raw, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("gemini home: %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o600); err != nil {
			return fmt.Errorf("gemini home: %w", err)
		}
	}
	return nil
}
