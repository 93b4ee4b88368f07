package proto

// KillServerParams ends the session. Keep stops it keeping its state file,
// brought up to date, so `melmux restore` brings it back; without it the
// state file goes with the session.
type KillServerParams struct {
	Keep bool `json:"keep,omitempty"`
}
