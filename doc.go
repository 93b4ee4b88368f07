// Package melmux holds the repository's own checks, which no one package
// owns: deps_test.go keeps the import direction of docs/architecture.md
// (which package may import which, and what each binary may link).
package melmux
