package main

func init() {
	register(&verb{
		name:    "kill-server",
		usage:   "",
		summary: "end the session and its panes",
		run: func(g *globals, args []string) error {
			fs := newFlags(g, "kill-server")
			if err := parseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return usagef("kill-server takes no arguments, got %q", fs.Arg(0))
			}
			return call(g, "kill-server", nil, nil)
		},
	})
}
