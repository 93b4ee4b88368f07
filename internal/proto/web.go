package proto

// WebParams asks the session's server to serve it over HTTP (`melmux web`),
// to stop (Stop) or to say how it serves (Status). Listen is ADDR:PORT
// (127.0.0.1:0 when empty); TLSCert and TLSKey are absolute paths of PEM
// files, both or neither.
type WebParams struct {
	Listen  string `json:"listen,omitempty"`
	TLSCert string `json:"tls_cert,omitempty"`
	TLSKey  string `json:"tls_key,omitempty"`
	Stop    bool   `json:"stop,omitempty"`
	Status  bool   `json:"status,omitempty"`
}

// WebResult says how the session is served. URL carries a one-time login
// code in its fragment (never sent to the server by the browser, so never
// in a log or a Referer); Code is that code alone. Both are empty for
// Status and Stop.
type WebResult struct {
	Session string `json:"session"`
	Running bool   `json:"running"`
	Addr    string `json:"addr,omitempty"`
	TLS     bool   `json:"tls,omitempty"`
	URL     string `json:"url,omitempty"`
	Code    string `json:"code,omitempty"`
	// Browsers is how many pages are connected.
	Browsers int `json:"browsers"`
	// Stopped says Stop ended a server that ran.
	Stopped bool `json:"stopped,omitempty"`
}
