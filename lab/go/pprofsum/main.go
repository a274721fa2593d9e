// SPDX-License-Identifier: GPL-2.0

// pprofsum is the bias lab's independent pprof reader, built on
// github.com/google/pprof/profile (Debian golang-github-google-pprof-dev).
// It prints, for the sample type "cpu" (else the default/last one):
//
//	total <TAB> value <TAB> count
//	tid <TAB> TID <TAB> value <TAB> count       (per numeric "tid" label)
//	func <TAB> NAME <TAB> value <TAB> count     (per -func NAME: samples whose
//	                                           stack contains NAME, once each)
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

func main() {
	funcs := flag.String("func", "", "comma-separated function names")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: pprofsum [-func a,b] PROFILE")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "pprofsum:", err)
		os.Exit(1)
	}
	p, err := profile.Parse(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pprofsum:", err)
		os.Exit(1)
	}
	if err := p.CheckValid(); err != nil {
		fmt.Fprintln(os.Stderr, "pprofsum: invalid profile:", err)
		os.Exit(1)
	}
	vi, ci := len(p.SampleType)-1, -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			vi = i
		}
		if st.Type == "samples" {
			ci = i
		}
	}
	var names []string
	if *funcs != "" {
		names = strings.Split(*funcs, ",")
	}
	type acc struct{ v, n int64 }
	var total acc
	byTid := map[int64]*acc{}
	byFunc := map[string]*acc{}
	for _, s := range p.Sample {
		v, n := s.Value[vi], int64(1)
		if ci >= 0 {
			n = s.Value[ci]
		}
		total.v += v
		total.n += n
		if t, ok := s.NumLabel["tid"]; ok && len(t) == 1 {
			a := byTid[t[0]]
			if a == nil {
				a = &acc{}
				byTid[t[0]] = a
			}
			a.v += v
			a.n += n
		}
		for _, name := range names {
			if stackHas(s, name) {
				a := byFunc[name]
				if a == nil {
					a = &acc{}
					byFunc[name] = a
				}
				a.v += v
				a.n += n
			}
		}
	}
	fmt.Printf("total\t%d\t%d\n", total.v, total.n)
	tids := make([]int64, 0, len(byTid))
	for t := range byTid {
		tids = append(tids, t)
	}
	sort.Slice(tids, func(i, j int) bool { return tids[i] < tids[j] })
	for _, t := range tids {
		fmt.Printf("tid\t%d\t%d\t%d\n", t, byTid[t].v, byTid[t].n)
	}
	for _, name := range names {
		a := byFunc[name]
		if a == nil {
			a = &acc{}
		}
		fmt.Printf("func\t%s\t%d\t%d\n", name, a.v, a.n)
	}
}

func stackHas(s *profile.Sample, name string) bool {
	for _, loc := range s.Location {
		for _, l := range loc.Line {
			if l.Function != nil && l.Function.Name == name {
				return true
			}
		}
	}
	return false
}
