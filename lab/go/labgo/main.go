// SPDX-License-Identifier: GPL-2.0

// labgo is the bias lab's Go workload: the same work run by one goroutine
// (serialPhase), then split over GOMAXPROCS goroutines (parallelPhase), the
// shape of golang/go#35057. It prints the process CPU time of each phase
// from getrusage: "phase <TAB> cpu_ns" lines to $LAB_TRUTH (or stderr).
// With $LAB_GO_CPUPROFILE set it also writes a runtime/pprof CPU profile at
// $LAB_GO_HZ (default 100) samples per second; only 100 is supported by
// StartCPUProfile, which the lab uses.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"syscall"
)

var sink uint64

//go:noinline
func spin(units int) uint64 {
	x := uint64(units)
	for u := 0; u < units; u++ {
		for i := 0; i < 100000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	return x
}

// Profiles are split into phases by serialPhase and parallelPhase.func1 (the
// goroutines' body): a goroutine does not keep its creator's frame, and a
// frame-pointer walk from the frameless leaf spin skips its direct caller.
//
//go:noinline
func serialWork(units int) uint64 { return spin(units) }

//go:noinline
func parallelWork(units int) uint64 { return spin(units) }

//go:noinline
func serialPhase(units int) {
	sink += serialWork(units)
}

//go:noinline
func parallelPhase(units, workers int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := parallelWork(units / workers)
			mu.Lock()
			sink += v
			mu.Unlock()
		}()
	}
	wg.Wait()
}

func cpuNs() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: labgo UNITS")
		os.Exit(2)
	}
	units, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "labgo:", err)
		os.Exit(2)
	}
	out := os.Stderr
	if p := os.Getenv("LAB_TRUTH"); p != "" {
		if out, err = os.Create(p); err != nil {
			fmt.Fprintln(os.Stderr, "labgo:", err)
			os.Exit(1)
		}
	}
	if p := os.Getenv("LAB_GO_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "labgo:", err)
			os.Exit(1)
		}
		if hz, _ := strconv.Atoi(os.Getenv("LAB_GO_HZ")); hz > 0 && hz != 100 {
			runtime.SetCPUProfileRate(hz)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "labgo:", err)
		}
		defer pprof.StopCPUProfile()
	}
	t0 := cpuNs()
	serialPhase(units)
	t1 := cpuNs()
	parallelPhase(units, runtime.GOMAXPROCS(0))
	t2 := cpuNs()
	fmt.Fprintf(out, "serial\t%d\nparallel\t%d\n", t1-t0, t2-t1)
}
