// SPDX-License-Identifier: GPL-2.0

// Command goleaf is the frameless-leaf test for Go: main.mix is a small
// leaf that Go gives no frame, and main.crunch is its only caller, called
// from a goroutine (main.main.func2; func1 is the deferred closure). A
// frame-pointer walk from mix skips crunch (rbp still points at crunch's
// frame), so the profile's edge crunch -> mix, which Go PGO reads, needs
// mix's CFI and the word at sp.
// With -cpuprofile it also writes its own runtime/pprof profile, the
// reference for that edge, taken at -hz samples a second (runtime/pprof's
// own 100 Hz gives too few samples in a few seconds to compare shares to a
// few points). Runs for -s seconds of CPU time.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"
)

var sink uint64

// mix's rounds, a loop in registers, keep it a leaf without a frame and
// give it most of the CPU: a sample lands in mix, not in crunch's loop,
// ~9 times in 10, so the edge crunch -> mix is the heaviest by far for
// every sampler (with one round the two split near 50:50, and where a
// periodic sampler's interrupts fell among their few instructions
// decided which edge was heavier)
//
//go:noinline
func mix(x, i uint64) uint64 {
	for r := uint64(0); r < 8; r++ {
		x ^= (x<<13 | x>>51) + i + r
		x *= 0x9e3779b97f4a7c15
	}
	return x
}

//go:noinline
func crunch(n int, seed uint64) uint64 {
	x := seed
	for i := 0; i < n; i++ {
		x = mix(x, uint64(i))
	}
	return x
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	secs := flag.Float64("s", 2, "CPU seconds to run")
	prof := flag.String("cpuprofile", "", "write a runtime/pprof CPU profile here")
	hz := flag.Int("hz", 100, "runtime/pprof's sampling rate")
	flag.Parse()
	if *prof != "" {
		if *hz != 100 {
			// The documented way to another rate: set it first, and
			// StartCPUProfile's own SetCPUProfileRate(100) is refused
			// (with a line on stderr); the profile's period is hz's.
			runtime.SetCPUProfileRate(*hz)
		}
		f, err := os.Create(*prof)
		if err != nil {
			fmt.Fprintln(os.Stderr, "goleaf:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "goleaf:", err)
			os.Exit(1)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	limit := time.Duration(*secs * float64(time.Second))
	done := make(chan struct{})
	go func() {
		for cpuTime() < limit {
			sink += crunch(200000, sink)
		}
		close(done)
	}()
	<-done
	fmt.Println(sink != 0)
}
