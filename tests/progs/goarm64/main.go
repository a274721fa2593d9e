// SPDX-License-Identifier: GPL-2.0

// Go's arm64 frames for tests/unit/test_arm64.c, cross-built
// (GOARCH=arm64) and read, not run: main.mix is a frameless leaf (its
// caller only in the link register), main.crunch calls it. No imports,
// so the cross-build compiles the runtime alone.
package main

//go:noinline
func mix(x, i uint64) uint64 {
	return (x ^ (x<<13 | x>>51) + i) * 0x9e3779b97f4a7c15
}

//go:noinline
func crunch(n int, seed uint64) uint64 {
	h := seed
	for i := 0; i < n; i++ {
		h = mix(h, uint64(i))
	}
	return h
}

var sink uint64

func main() {
	sink = crunch(1000, 1)
}
