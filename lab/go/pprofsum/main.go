// SPDX-License-Identifier: GPL-2.0

// pprofsum is the bias lab's independent pprof reader, built on
// github.com/google/pprof/profile (Debian golang-github-google-pprof-dev).
// It prints, for the sample type "cpu" (else the default/last one; with
// -sample_index NAME that one, and only the samples with a value in it):
//
//	total <TAB> value <TAB> count
//	pid <TAB> PID <TAB> value <TAB> count       (per numeric "pid" label)
//	tid <TAB> TID <TAB> value <TAB> count       (per numeric "tid" label)
//	func <TAB> NAME <TAB> value <TAB> count     (per -func NAME: samples whose
//	                                           stack contains NAME, once each)
//	tidfunc <TAB> TID <TAB> NAME <TAB> value <TAB> count
//	        (-func NAME split by the "tid" label)
//	below <TAB> NAME <TAB> CALLEE <TAB> value <TAB> count
//	        (per -below NAME: samples whose stack has NAME, by the frame
//	        right below it, the function it called; "-" if it is the leaf)
//	leaf <TAB> NAME <TAB> CALLER <TAB> value <TAB> count
//	        (per -leaf NAME: samples whose innermost frame is NAME, by the
//	        frame right above it: its caller as the profile says)
//	reach <TAB> A <TAB> B <TAB> value <TAB> count <TAB> valueA <TAB> countA
//	        (per -reach A:B: samples whose stack has A, and of those the
//	        ones where B is above A)
//	label <TAB> VALUE <TAB> value <TAB> count   (per -label KEY: per value of
//	                                           the string label KEY, or of
//	                                           the numeric one, in decimal)
//	labelfunc <TAB> VALUE <TAB> NAME <TAB> value <TAB> count
//	        (-label KEY with -func: samples with KEY=VALUE whose stack
//	        contains NAME)
//	function <TAB> NAME <TAB> SYSTEM_NAME       (-functions: every Function)
//	leafloc <TAB> ADDRESS <TAB> FILE <TAB> BUILD_ID <TAB> NAMES <TAB> value <TAB> count
//	        (-leaflocs: per innermost location, its mapping and its
//	        function names, innermost first, joined by ";")
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
	leaves := flag.String("leaf", "", "comma-separated leaf function names")
	belows := flag.String("below", "", "comma-separated function names")
	index := flag.String("sample_index", "", "sample type to sum (default cpu)")
	reaches := flag.String("reach", "", "comma-separated A:B pairs")
	labelKey := flag.String("label", "", "string label to split by")
	functions := flag.Bool("functions", false, "list every function with its system name")
	leafLocs := flag.Bool("leaflocs", false, "samples by innermost location")
	tag := flag.String("tag", "", "KEY=VALUE: only the samples whose label KEY (string or number) is VALUE")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: pprofsum [-sample_index TYPE] [-tag KEY=VALUE] [-func a,b] [-leaf a] [-below a] [-reach a:b] [-label KEY] [-functions] [-leaflocs] PROFILE")
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
	want := "cpu"
	if *index != "" {
		want = *index
		vi = -1
	}
	for i, st := range p.SampleType {
		if st.Type == want {
			vi = i
		}
		if st.Type == "samples" {
			ci = i
		}
	}
	if vi < 0 {
		fmt.Fprintln(os.Stderr, "pprofsum: no sample type", want)
		os.Exit(1)
	}
	var names, leafNames, belowNames, reachPairs []string
	if *belows != "" {
		belowNames = strings.Split(*belows, ",")
	}
	if *funcs != "" {
		names = strings.Split(*funcs, ",")
	}
	if *leaves != "" {
		leafNames = strings.Split(*leaves, ",")
	}
	if *reaches != "" {
		reachPairs = strings.Split(*reaches, ",")
	}
	var total acc
	byPid := map[int64]*acc{}
	byTid := map[int64]*acc{}
	byFunc := map[string]*acc{}
	byTidFunc := map[int64]map[string]*acc{}
	byLeaf := map[string]map[string]*acc{}
	byBelow := map[string]map[string]*acc{}
	type reachAcc struct{ with, all acc }
	byReach := map[string]*reachAcc{}
	byLabel := map[string]*acc{}
	byLabelFunc := map[string]map[string]*acc{}
	byLeafLoc := map[*profile.Location]*acc{}
	for _, s := range p.Sample {
		v, n := s.Value[vi], int64(1)
		if ci >= 0 {
			n = s.Value[ci]
		}
		if *index != "" && v == 0 {
			continue
		}
		if k, want, ok := strings.Cut(*tag, "="); ok {
			got := ""
			if l, ok := s.Label[k]; ok && len(l) == 1 {
				got = l[0]
			} else if t, ok := s.NumLabel[k]; ok && len(t) == 1 {
				got = fmt.Sprint(t[0])
			}
			if got != want {
				continue
			}
		}
		total.add(v, n)
		if t, ok := s.NumLabel["pid"]; ok && len(t) == 1 {
			bump(byPid, t[0], v, n)
		}
		if t, ok := s.NumLabel["tid"]; ok && len(t) == 1 {
			bump(byTid, t[0], v, n)
		}
		frames := frameNames(s)
		if *labelKey != "" {
			lv := "-"
			if l, ok := s.Label[*labelKey]; ok && len(l) == 1 {
				lv = l[0]
			} else if t, ok := s.NumLabel[*labelKey]; ok && len(t) == 1 {
				lv = fmt.Sprint(t[0])
			}
			if byLabel[lv] == nil {
				byLabelFunc[lv] = map[string]*acc{}
			}
			bump(byLabel, lv, v, n)
			for _, name := range names {
				if stackHas(s, name) {
					bump(byLabelFunc[lv], name, v, n)
				}
			}
		}
		if *leafLocs && len(s.Location) > 0 {
			bump(byLeafLoc, s.Location[0], v, n)
		}
		for _, name := range leafNames {
			if len(frames) == 0 || frames[0] != name {
				continue
			}
			caller := "-"
			if len(frames) > 1 {
				caller = frames[1]
			}
			if byLeaf[name] == nil {
				byLeaf[name] = map[string]*acc{}
			}
			bump(byLeaf[name], caller, v, n)
		}
		for _, name := range belowNames {
			for i, f := range frames {
				if f != name {
					continue
				}
				callee := "-"
				if i > 0 {
					callee = frames[i-1]
				}
				if byBelow[name] == nil {
					byBelow[name] = map[string]*acc{}
				}
				bump(byBelow[name], callee, v, n)
				break
			}
		}
		for _, pair := range reachPairs {
			ab := strings.SplitN(pair, ":", 2)
			if len(ab) != 2 {
				continue
			}
			r := byReach[pair]
			if r == nil {
				r = &reachAcc{}
				byReach[pair] = r
			}
			ia := -1
			for i, f := range frames {
				if f == ab[0] {
					ia = i
					break
				}
			}
			if ia < 0 {
				continue
			}
			r.all.add(v, n)
			for _, f := range frames[ia+1:] {
				if f == ab[1] {
					r.with.add(v, n)
					break
				}
			}
		}
		for _, name := range names {
			if stackHas(s, name) {
				bump(byFunc, name, v, n)
				if t, ok := s.NumLabel["tid"]; ok && len(t) == 1 {
					if byTidFunc[t[0]] == nil {
						byTidFunc[t[0]] = map[string]*acc{}
					}
					bump(byTidFunc[t[0]], name, v, n)
				}
			}
		}
	}
	fmt.Printf("total\t%d\t%d\n", total.v, total.n)
	printByNum("pid", byPid)
	printByNum("tid", byTid)
	for _, name := range names {
		a := byFunc[name]
		if a == nil {
			a = &acc{}
		}
		fmt.Printf("func\t%s\t%d\t%d\n", name, a.v, a.n)
	}
	tids := make([]int64, 0, len(byTidFunc))
	for t := range byTidFunc {
		tids = append(tids, t)
	}
	sort.Slice(tids, func(i, j int) bool { return tids[i] < tids[j] })
	for _, t := range tids {
		for _, name := range names {
			if a := byTidFunc[t][name]; a != nil {
				fmt.Printf("tidfunc\t%d\t%s\t%d\t%d\n", t, name, a.v, a.n)
			}
		}
	}
	for _, name := range leafNames {
		callers := make([]string, 0, len(byLeaf[name]))
		for c := range byLeaf[name] {
			callers = append(callers, c)
		}
		sort.Strings(callers)
		for _, c := range callers {
			a := byLeaf[name][c]
			fmt.Printf("leaf\t%s\t%s\t%d\t%d\n", name, c, a.v, a.n)
		}
	}
	for _, name := range belowNames {
		callees := make([]string, 0, len(byBelow[name]))
		for c := range byBelow[name] {
			callees = append(callees, c)
		}
		sort.Strings(callees)
		for _, c := range callees {
			a := byBelow[name][c]
			fmt.Printf("below\t%s\t%s\t%d\t%d\n", name, c, a.v, a.n)
		}
	}
	for _, pair := range reachPairs {
		ab := strings.SplitN(pair, ":", 2)
		r := byReach[pair]
		if len(ab) != 2 || r == nil {
			continue
		}
		fmt.Printf("reach\t%s\t%s\t%d\t%d\t%d\t%d\n", ab[0], ab[1],
			r.with.v, r.with.n, r.all.v, r.all.n)
	}
	lvs := make([]string, 0, len(byLabel))
	for lv := range byLabel {
		lvs = append(lvs, lv)
	}
	sort.Strings(lvs)
	for _, lv := range lvs {
		fmt.Printf("label\t%s\t%d\t%d\n", lv, byLabel[lv].v, byLabel[lv].n)
		for _, name := range names {
			a := byLabelFunc[lv][name]
			if a == nil {
				a = &acc{}
			}
			fmt.Printf("labelfunc\t%s\t%s\t%d\t%d\n", lv, name, a.v, a.n)
		}
	}
	if *functions {
		var fl []string
		seen := map[string]bool{}
		for _, f := range p.Function {
			l := f.Name + "\t" + f.SystemName
			if !seen[l] {
				seen[l] = true
				fl = append(fl, l)
			}
		}
		sort.Strings(fl)
		for _, l := range fl {
			fmt.Printf("function\t%s\n", l)
		}
	}
	locs := make([]*profile.Location, 0, len(byLeafLoc))
	for l := range byLeafLoc {
		locs = append(locs, l)
	}
	sort.Slice(locs, func(i, j int) bool {
		if locs[i].Address != locs[j].Address {
			return locs[i].Address < locs[j].Address
		}
		return locs[i].ID < locs[j].ID
	})
	for _, l := range locs {
		file, bid := "-", "-"
		if l.Mapping != nil {
			file, bid = l.Mapping.File, l.Mapping.BuildID
		}
		var ln []string
		for _, x := range l.Line {
			if x.Function != nil {
				ln = append(ln, x.Function.Name)
			}
		}
		if len(ln) == 0 {
			ln = []string{"-"}
		}
		a := byLeafLoc[l]
		fmt.Printf("leafloc\t0x%x\t%s\t%s\t%s\t%d\t%d\n", l.Address,
			file, bid, strings.Join(ln, ";"), a.v, a.n)
	}
}

// frameNames is the sample's stack as function names, innermost first,
// inlined frames included (a location's lines are innermost first), C++
// names without their parameter lists.
func frameNames(s *profile.Sample) []string {
	var out []string
	for _, loc := range s.Location {
		if len(loc.Line) == 0 {
			out = append(out, fmt.Sprintf("0x%x", loc.Address))
		}
		for _, l := range loc.Line {
			name := "?"
			if l.Function != nil {
				name = l.Function.Name
			}
			// C++: "key(unsigned long)" is asked for as "key"
			if i := strings.IndexByte(name, '('); i > 0 && !strings.HasPrefix(name, "main.") {
				name = name[:i]
			}
			out = append(out, name)
		}
	}
	return out
}

// acc sums a sample value and a sample count.
type acc struct{ v, n int64 }

func (a *acc) add(v, n int64) {
	a.v += v
	a.n += n
}

// bump adds to m's acc for k, made on first use.
func bump[K comparable](m map[K]*acc, k K, v, n int64) {
	a := m[k]
	if a == nil {
		a = &acc{}
		m[k] = a
	}
	a.add(v, n)
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

// printByNum prints "kind <TAB> N <TAB> value <TAB> count" lines, by N.
func printByNum(kind string, m map[int64]*acc) {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		fmt.Printf("%s\t%d\t%d\t%d\n", kind, k, m[k].v, m[k].n)
	}
}
