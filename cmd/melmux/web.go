package main

import (
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/melmux/melmux/internal/cli"
	"github.com/melmux/melmux/internal/proto"
	"github.com/melmux/melmux/internal/webtoken"
)

const webUsage = `[--listen ADDR:PORT] [--tls-cert FILE --tls-key FILE] [--json]
       melmux web --status | --stop
       melmux web token create [--read-only] [--name NAME]
       melmux web token list
       melmux web token revoke NAME`

func init() {
	cli.Register(&cli.Verb{
		Name:  "web",
		Usage: webUsage,
		Summary: "serve the session to a browser or a phone: watch the panes, type, answer the agents (127.0.0.1 unless TLS; " +
			"prints the address with a one-time login code); token: the logins that last",
		Run: func(g *cli.Globals, args []string) error {
			if len(args) > 0 && args[0] == "token" {
				return webToken(g, args[1:])
			}
			fs := cli.NewFlags(g, "web")
			listen := fs.String("listen", "", "`ADDR:PORT` to serve on (default 127.0.0.1:0: a free port of this machine only)")
			cert := fs.String("tls-cert", "", "PEM certificate `FILE`: serve HTTPS, which any address but loopback needs")
			key := fs.String("tls-key", "", "PEM private key `FILE` of --tls-cert")
			stop := fs.Bool("stop", false, "stop serving")
			status := fs.Bool("status", false, "say whether and where the session is served")
			asJSON := fs.Bool("json", false, "print the result as JSON")
			if err := cli.ParseFlags(fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return cli.Usagef("web: unexpected %q (subcommand: token)", fs.Arg(0))
			}
			if *stop && *status {
				return cli.Usagef("web: --stop or --status, not both")
			}
			p := proto.WebParams{Listen: *listen, Stop: *stop, Status: *status}
			// The server runs in another directory: it gets the files' full paths.
			for _, f := range []struct {
				in  string
				out *string
			}{{*cert, &p.TLSCert}, {*key, &p.TLSKey}} {
				if f.in != "" {
					abs, err := filepath.Abs(f.in)
					if err != nil {
						return err
					}
					*f.out = abs
				}
			}
			var res proto.WebResult
			if err := call(g, "web", p, &res); err != nil {
				return err
			}
			if *asJSON {
				return printJSON(g.Stdout, res)
			}
			switch {
			case *stop && res.Stopped:
				fmt.Fprintf(g.Stdout, "stopped serving session %s (%d browsers were connected)\n", res.Session, res.Browsers)
			case *stop || *status && !res.Running:
				fmt.Fprintf(g.Stdout, "session %s is not served\n", res.Session)
			case *status:
				scheme := "http"
				if res.TLS {
					scheme = "https"
				}
				fmt.Fprintf(g.Stdout, "serving session %s on %s://%s (%d browsers connected)\n", res.Session, scheme, res.Addr, res.Browsers)
			default:
				// One line, so a script can take it; the code works once.
				fmt.Fprintln(g.Stdout, res.URL)
			}
			return nil
		},
	})
}

func webToken(g *cli.Globals, args []string) error {
	if len(args) == 0 {
		return cli.Usagef("web token: give create, list or revoke NAME")
	}
	path, err := webtoken.Path()
	if err != nil {
		return err
	}
	store := webtoken.Open(path)
	fs := cli.NewFlags(g, "web")
	switch args[0] {
	case "create":
		ro := fs.Bool("read-only", false, "a token that can watch, never type or answer")
		name := fs.String("name", "", "the token's `NAME` (default token-N)")
		if err := cli.ParseFlags(fs, args[1:]); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return cli.Usagef("web token create: unexpected %q", fs.Arg(0))
		}
		secret, tok, err := store.Create(*name, *ro)
		if err != nil {
			return fmt.Errorf("web token create: %w", err)
		}
		mode := "read-write"
		if tok.ReadOnly {
			mode = "read-only"
		}
		fmt.Fprintln(g.Stdout, secret)
		fmt.Fprintf(g.Stderr, "token %s (%s): shown this once; melmux keeps only its sha256 (%s)\n", tok.Name, mode, path)
		return nil
	case "list":
		if err := cli.ParseFlags(fs, args[1:]); err != nil {
			return err
		}
		toks, err := store.List()
		if err != nil {
			return err
		}
		if len(toks) == 0 {
			fmt.Fprintln(g.Stdout, "no web tokens (melmux web token create makes one)")
			return nil
		}
		tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tMODE\tCREATED")
		for _, t := range toks {
			mode := "read-write"
			if t.ReadOnly {
				mode = "read-only"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, mode, t.Created.Local().Format("2006-01-02 15:04"))
		}
		return tw.Flush()
	case "revoke":
		if err := cli.ParseFlags(fs, args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return cli.Usagef("web token revoke takes one NAME (melmux web token list names them)")
		}
		if err := store.Revoke(fs.Arg(0)); err != nil {
			return fmt.Errorf("web token revoke: %w", err)
		}
		fmt.Fprintf(g.Stdout, "revoked %s: browsers logged in with it are logged out at their next request\n", fs.Arg(0))
		return nil
	}
	return cli.Usagef("web token: unknown subcommand %q (allowed: create, list, revoke)", args[0])
}
