package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// claudeStandIn asks what Claude Code asks before running a command, as
// cmd/melmux's browser test's stand-in does, and waits for its key.
const claudeStandIn = `#!/bin/sh
printf '\033[1m\342\234\273 Fix the failing test in parser_test.go\033[0m\n\n'
printf '\342\227\217 Read(internal/parse/parser.go)\n  \342\224\224 Read 212 lines\n\n'
printf '\342\227\217 Update(internal/parse/parser.go)\n  \342\224\224 Updated with 3 additions and 1 removal\n\n'
printf '\033[1mBash command\033[0m\n  go test ./internal/parse/...\n\nDo you want to proceed?\n\342\235\257 1. Yes\n  2. No, and tell Claude what to do differently (esc)\n'
stty -icanon -echo min 1
dd bs=1 count=1 >/dev/null 2>&1
sleep 600
`

// goStandIn prints what `go test` prints, so the picture is the same at
// every run.
const goStandIn = `#!/bin/sh
printf '\033[32mok\033[0m  \texample.com/shop/internal/cart\t0.412s\n'
printf '\033[32mok\033[0m  \texample.com/shop/internal/pay\t1.087s\n'
printf -- '--- FAIL: TestParseQuantity (0.00s)\n    parser_test.go:41: Parse("2x") = 0, want 2\n'
printf '\033[31mFAIL\033[0m\texample.com/shop/internal/parse\t0.215s\n'
exit 1
`

// logStandIn is a server's log in the third pane.
const logStandIn = `#!/bin/sh
i=0
for p in /api/cart /api/items /health /api/pay /api/items/42 /api/cart /health /api/items; do
  i=$((i+1))
  printf '\033[2m12:04:%02d\033[0m GET %-16s \033[32m200\033[0m %dms\n' $((i*3)) "$p" $((i*7%23+2))
done
exec sleep 600
`

// screenshots takes docs/web.md's pictures: a session of three panes (a
// shell with some output, another below it, a Claude stand-in asking a
// question) at desktop and phone sizes.
func screenshots(ctx context.Context, c config, e *env) error {
	if err := os.MkdirAll(c.shots, 0o755); err != nil {
		return err
	}
	for name, script := range map[string]string{"claude": claudeStandIn, "go": goStandIn, "serve-log": logStandIn} {
		if err := os.WriteFile(filepath.Join(e.dir, "bin", name), []byte(script), 0o755); err != nil {
			return err
		}
	}
	url, err := e.session("main", 150, 38, "sh")
	if err != nil {
		return err
	}
	steps := [][]string{
		{"send-keys", "-t", "1", `go test ./...<Enter>`},
		{"open-pane", "--layout", "right", "--", "claude"},
		{"open-pane", "-t", "1", "--layout", "down", "--", "serve-log"},
		{"wait", "-t", "2", "--state", "waiting", "--timeout", "60s"},
	}
	for _, s := range steps {
		if _, err := e.melmux(append([]string{"-s", "main"}, s...)...); err != nil {
			return err
		}
	}
	for _, shot := range []struct {
		file   string
		w, h   int64
		mobile bool
	}{{"web-desktop.png", 1280, 800, false}, {"web-phone.png", 390, 844, true}} {
		bctx, cancel, err := browser(ctx, c, filepath.Join(e.dir, "chrome-"+shot.file), int(shot.w), int(shot.h))
		if err != nil {
			return err
		}
		// Each browser logs in with a code of its own: a code works once.
		if url == "" {
			if url, err = e.serve("main"); err != nil {
				cancel()
				return err
			}
		}
		var png []byte
		err = do(bctx, "open the page at "+shot.file,
			chromedp.EmulateViewport(shot.w, shot.h, func(p *emulation.SetDeviceMetricsOverrideParams, t *emulation.SetTouchEmulationEnabledParams) {
				p.Mobile, t.Enabled = shot.mobile, shot.mobile
			}),
			chromedp.Navigate(url), chromedp.WaitVisible("#app"),
			until(`[...document.querySelectorAll('#agentlist button.opt')].some(b => b.textContent.includes("Yes"))`),
			until(`[...document.querySelectorAll('.pane pre')].some(p => p.textContent.includes("FAIL"))`))
		if err == nil {
			png, err = chromedp.Run(bctx, chromedp.CaptureScreenshot())
		}
		cancel()
		url = ""
		if err != nil {
			return err
		}
		path := filepath.Join(c.shots, shot.file)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			return err
		}
		fmt.Printf("%s: %dx%d, %.1f KB\n", path, shot.w, shot.h, float64(len(png))/1000)
	}
	return nil
}
