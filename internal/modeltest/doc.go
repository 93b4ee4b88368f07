// Package modeltest is a scripted model endpoint for tests: an HTTP server
// speaking the relay, OpenAI chat completions or Anthropic Messages
// streaming protocol, answering each request with the next Leg of a script
// and recording every request. Unit tests drive providers against it; the
// end-to-end tests point a separate melmux agent process at it (Env).
//
// It fails loudly: a request that does not match its leg, breaks the
// protocol (a tool result answering no call, a call left unanswered), or
// arrives when the script is used up is answered with an error naming the
// problem, recorded (Problems, Verify), and reported to the test when New
// was given one.
package modeltest
