package cli

// ConfigVerb is the verb config, run by run; standIn says it is melmux's
// stand-in that hands over to ServerBinary, which links the config parser,
// rather than the real verb (internal/serveverb).
func ConfigVerb(run func(g *Globals, args []string) error, standIn bool) *Verb {
	return &Verb{
		Name:    "config",
		Usage:   "check [FILE]",
		Summary: "check a config file (default: yours) and print every problem with its line",
		Run:     run, StandIn: standIn,
	}
}
