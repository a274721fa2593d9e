// SPDX-License-Identifier: GPL-2.0

// Command goprog is tprof's Go test program: a hot call chain with small
// functions the compiler inlines (hotLoop -> mix -> rotate), generics and
// methods, run on several goroutines for a given CPU time. With -cpuprofile
// it also writes its own runtime/pprof profile, the reference that tprof's
// symbolization is compared with.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"
)

var sink uint64

func rotate(x uint64) uint64 { return x<<13 | x>>51 }

func mix(x, i uint64) uint64 {
	x ^= rotate(x) + i
	return x * 0x9e3779b97f4a7c15
}

// Sum is generic so that shape-instantiated names appear in the profile.
func Sum[T ~uint64 | ~int](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

type worker struct{ seed uint64 }

//go:noinline
func (w *worker) hotLoop(n int) uint64 {
	x := w.seed
	for i := 0; i < n; i++ {
		x = mix(x, uint64(i))
	}
	return x
}

//go:noinline
func coldPath(w *worker) uint64 {
	xs := make([]uint64, 64)
	for i := range xs {
		xs[i] = w.hotLoop(100)
	}
	return Sum(xs)
}

// cpuTime is the process's CPU time: the work is measured in CPU, not wall
// time, so a slow or jumpy clock (emulated guests) does not change it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func burn(id int, budget time.Duration, wg *sync.WaitGroup) {
	defer wg.Done()
	w := &worker{seed: uint64(id) + 1}
	var acc uint64
	for cpuTime() < budget {
		acc += w.hotLoop(20000)
		acc += coldPath(w)
	}
	sink += acc
}

func main() {
	cpuprofile := flag.String("cpuprofile", "", "write a runtime/pprof CPU profile")
	seconds := flag.Float64("s", 1, "seconds of CPU per goroutine")
	goroutines := flag.Int("g", 2, "goroutines")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	var wg sync.WaitGroup
	budget := cpuTime() + time.Duration(*seconds*float64(*goroutines)*float64(time.Second))
	for i := 0; i < *goroutines; i++ {
		wg.Add(1)
		go burn(i, budget, &wg)
	}
	wg.Wait()
	fmt.Println(sink & 1)
}
