//go:build !race

package term

const raceBuild = false
