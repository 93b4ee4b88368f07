// Package agentcfg holds the type of config.toml's [agent] table apart from
// the rest of internal/config, so the orchestrator can take it without
// depending on the config file's parser and its other tables.
// internal/config parses it and names it config.Agent.
package agentcfg
