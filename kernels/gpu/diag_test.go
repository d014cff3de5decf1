//go:build !js

package gpu

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fkc-playground/fkc/kernels"
	"github.com/fkc-playground/fkc/tensor"
)

// A measurement harness for real GPUs (not a correctness test): it runs the
// `fkc bench` shapes straight on a Device and prints, per repetition, the
// kernel time (GPU timestamps), the end-to-end device time, the host setup
// time and the wall time, with the seconds since start (to line up with a
// clock log). Off unless -fkc.diag names the plan:
//
//	go test -run TestDiag -fkc.diag seq,idle ./kernels/gpu
//
// seq: every case in order (warm-up + reps), twice over; idle: one case
// back to back, then after 2 s idle, then after a busy stretch; warm: one
// case after the clock has dropped, then after WarmClocks; reopen:
// every case again on a newly opened device (closing the old one); variants:
// tuning choices side by side (see the plan); rb: sum_all's bulk level at
// 1..16 rounds per workgroup; sqpf: scatter_add_rows' chunk size and
// next-chunk loads; bs: sum_all's bulk loads in groups; lb: the last
// tree's closing barriers; bl: sum_all in one dispatch or two; gu:
// pad_backward's output words per thread; rep: every bench case with its
// passes repeated 20 times in the window (back to back, clocks held up);
// window: the timestamp window's floor (empty passes); host: a staged
// upload's host steps;
// -fkc.diag.scale
// shrinks the shapes (for a software adapter).
var (
	diagPlan  = flag.String("fkc.diag", "", "measurement plan: comma-separated of seq, idle, cases=PREFIX")
	diagScale = flag.Int("fkc.diag.scale", 1, "divide the large axes by this")
	diagReps  = flag.Int("fkc.diag.reps", 10, "timed repetitions per case")
)

type diagCase struct {
	name string
	run  func(d *Device) error
}

func diagCases(s int) []diagCase {
	r := rand.New(rand.NewSource(1))
	vals := func(shape ...int) *tensor.Tensor {
		t := tensor.New(tensor.F32, shape)
		f := t.F32()
		for i := range f {
			f[i] = float32(r.Intn(64)-32) / 4
		}
		return t
	}
	ix := func(bound int, shape ...int) *tensor.Tensor { return randIdx(r, shape, bound) }
	pads := pp(0, 0, 0, 0, 2, 2, 2, 2)
	x := vals(8, 3, 512/s, 512)
	g := vals(8, 3, 512/s+4, 516)
	big := vals(64 << 20 / s)
	m := vals(4096/s, 4096)
	table := vals(100000/s, 256)
	rows := ix(100000/s, 50000/s)
	gi := ix(4096, 4096/s, 4096)
	ai := ix(4096, 4096)
	src := vals(4096/s, 4096)
	rowsSrc := vals(50000/s, 256)
	tiny := vals(4, 4)
	levels := vals(2, 1<<20) // two segments of 2^20: bulk, level, finalize
	e := func(_ *tensor.Tensor, err error) error { return err }
	return []diagCase{
		{"pad constant", func(d *Device) error { return e(d.Pad(x, kernels.Constant, pads, make([]byte, 4))) }},
		{"pad reflect", func(d *Device) error { return e(d.Pad(x, kernels.Reflect, pads, nil)) }},
		{"pad replicate", func(d *Device) error { return e(d.Pad(x, kernels.Replicate, pads, nil)) }},
		{"pad_backward reflect", func(d *Device) error { return e(d.PadBackwardGather(g, kernels.Reflect, pads)) }},
		{"pad_backward reflect (CAS)", func(d *Device) error { return e(d.PadBackward(g, kernels.Reflect, pads)) }},
		{"sum_all", func(d *Device) error { return e(d.SumAll(big)) }},
		{"sum_dim", func(d *Device) error { return e(d.SumDim(m, 1)) }},
		{"max_dim", func(d *Device) error { return e(d.MaxDim(m, 1)) }},
		{"argmax_dim", func(d *Device) error { return e(d.ArgMaxDim(m, 1)) }},
		{"index_select", func(d *Device) error { return e(d.IndexSelect(table, rows, 0)) }},
		{"gather", func(d *Device) error { return e(d.Gather(m, gi, 1)) }},
		{"index_add", func(d *Device) error { return e(d.IndexAdd(m, ai, src, 1)) }},
		{"scatter_add", func(d *Device) error { return e(d.ScatterAdd(m, gi, src, 1)) }},
		// One tiny dispatch: the fixed cost inside the kernel-time window.
		{"tiny pad", func(d *Device) error { return e(d.Pad(tiny, kernels.Reflect, pp(1, 1, 1, 1), nil)) }},
		{"tiny pad_backward", func(d *Device) error { return e(d.PadBackwardGather(tiny, kernels.Reflect, pp(1, 1, 1, 1))) }},
		{"tiny sum levels", func(d *Device) error { return e(d.SumDim(levels, 1)) }},
		{"max_all", func(d *Device) error { return e(d.MaxAll(big)) }},
		{"pad constant 4096²", func(d *Device) error { return e(d.Pad(m, kernels.Constant, pp(3, 3, 3, 3), make([]byte, 4))) }},
		{"index_add dim 0", func(d *Device) error { return e(d.IndexAdd(table, rows, rowsSrc, 0)) }},
	}
}

func TestDiag(t *testing.T) {
	if *diagPlan == "" {
		t.Skip("measurement harness: run with -fkc.diag PLAN")
	}
	d := device(t)
	d.poisonBodies = false // measure what callers get
	start := time.Now()
	cases := diagCases(*diagScale)
	us := func(x time.Duration) float64 { return float64(x.Nanoseconds()) / 1e3 }
	var runCase func(tag string, c diagCase, reps int)
	runCase = func(tag string, c diagCase, reps int) {
		if err := c.run(d); err != nil {
			fmt.Printf("%-8s %-22s error: %v\n", tag, c.name, err)
			return
		}
		var ks, es, ss, ws []float64
		var list []string
		for range reps {
			t0 := time.Now()
			if err := c.run(d); err != nil {
				fmt.Printf("%-8s %-22s error: %v\n", tag, c.name, err)
				return
			}
			w := time.Since(t0)
			ks, es, ss, ws = append(ks, us(d.LastKernelTime())), append(es, us(d.LastGPUTime())), append(ss, us(d.lastSetup)), append(ws, us(w))
			list = append(list, fmt.Sprintf("%.0f", us(d.LastKernelTime())))
		}
		fmt.Printf("%-8s t=%6.1fs %-22s kernel %8.1f us  e2e %8.1f  setup %8.1f  wall %8.1f  [%s]\n", tag, time.Since(start).Seconds(), c.name,
			med(ks), med(es), med(ss), med(ws), strings.Join(list, " "))
	}
	for _, plan := range strings.Split(*diagPlan, ",") {
		switch {
		case plan == "seq":
			for round := 1; round <= 2; round++ {
				for _, c := range cases {
					runCase(fmt.Sprintf("seq%d", round), c, *diagReps)
				}
			}
		case plan == "idle":
			c := cases[6] // sum_dim
			runCase("idle0", c, *diagReps)
			time.Sleep(2 * time.Second)
			runCase("idle2s", c, *diagReps)
			for range 100 {
				c.run(d)
			}
			runCase("busy", c, *diagReps)
		case plan == "warm":
			// Does load bring the clock back? Idle until it has dropped,
			// then time sum_dim cold, after 0.5 s and after 2 s of
			// WarmClocks.
			c := cases[6] // sum_dim
			time.Sleep(6 * time.Second)
			runCase("cold", c, *diagReps)
			for _, w := range []time.Duration{500 * time.Millisecond, 2 * time.Second} {
				time.Sleep(6 * time.Second)
				t0 := time.Now()
				if err := d.WarmClocks(w); err != nil {
					t.Fatal(err)
				}
				fmt.Printf("warm     t=%6.1fs WarmClocks(%v) took %v\n", time.Since(start).Seconds(), w, time.Since(t0))
				runCase(fmt.Sprintf("warm%v", w), c, *diagReps)
			}
		case plan == "reopen":
			// A new device on the same instance: tells device state
			// (allocations, caches) from GPU/driver state (clocks).
			d.Close()
			nd, err := OpenNative()
			if err != nil {
				t.Fatal(err)
			}
			d = nd
			for _, c := range cases {
				runCase("reopen", c, *diagReps)
			}
		case plan == "variants":
			// Tuning choices measured side by side in one process:
			// scatter_add_rows' contributions per thread per chunk, and
			// uploads in pieces by size, 1, 2 or 4 (host time).
			byName := map[string]diagCase{}
			for _, c := range cases {
				byName[c.name] = c
			}
			for _, sq := range []int{4, 8} {
				saved := addSQ
				addSQ = sq
				runCase(fmt.Sprintf("sq%d", sq), byName["scatter_add"], *diagReps)
				addSQ = saved
			}
			// The fixed cost of one dispatch in the kernel-time window.
			for _, name := range []string{"tiny pad", "tiny pad_backward"} {
				runCase("tiny", byName[name], *diagReps)
			}
			runCase("tiny", byName["tiny sum levels"], *diagReps)
			for _, name := range []string{"sum_all", "sum_dim", "index_select", "gather"} {
				for _, n := range []int{0, 1, 2, 4} { // 0: by size (the default)
					saved := streamPieces
					streamPieces = n
					runCase(fmt.Sprintf("pieces%d", n), byName[name], *diagReps)
					streamPieces = saved
				}
			}
		case plan == "sel":
			// index_select's rows kernel with its divisions folded or not
			// (the same bits), and at other units per thread, interleaved
			// over three rounds.
			for round := 1; round <= 3; round++ {
				for _, consts := range []bool{false, true} {
					saved := selectConsts
					selectConsts = consts
					runCase(fmt.Sprintf("consts=%v", consts), cases[9], *diagReps)
					selectConsts = saved
				}
				for _, upt := range []int{2, 4, 16} { // selectUnits (8 above)
					saved := selectUnits
					selectUnits = upt
					runCase(fmt.Sprintf("upt%d", upt), cases[9], *diagReps)
					selectUnits = saved
				}
			}
		case plan == "sole":
			// A reduction's sole 64 MB input uploaded whole or in two
			// streamed pieces (wall time), interleaved over three rounds;
			// the pads, not marked sole, go whole either way (a control).
			for round := 1; round <= 3; round++ {
				for _, sole := range []bool{false, true} {
					saved := soleStream
					soleStream = sole
					for _, i := range []int{0, 3, 6, 7, 8} { // pad constant, pad_backward, sum / max / argmax dim
						runCase(fmt.Sprintf("sole=%v", sole), cases[i], *diagReps)
					}
					soleStream = saved
				}
			}
		case plan == "rb":
			// sum_all's bulk level at RB = 1..16 rounds of CH elements per
			// workgroup (the contract fixes 8), interleaved over two rounds.
			// H200, kernel-only medians: RB 1/2/4/8/16 = 91.2-91.6 /
			// 92.3-92.6 / 96.4-96.7 / 94.4 / 104.3-104.4 us, torch.sum 76.7
			// in the same call: the round count is not what holds it back.
			c := cases[5] // sum_all
			for round := 1; round <= 2; round++ {
				for _, rb := range []int{1, 2, 4, 8, 16} {
					savedR, savedM := bulkRounds, bulkMin
					bulkRounds, bulkMin = rb, 256*rb*chunk
					runCase(fmt.Sprintf("rb%d", rb), c, *diagReps)
					bulkRounds, bulkMin = savedR, savedM
				}
			}
		case plan == "bs":
			// sum_all's bulk loads in 4..32 groups (the same sum at every
			// split), interleaved over two rounds.
			for round := 1; round <= 2; round++ {
				for _, bs := range []int{4, 8, 16, 32} {
					saved := bulkSplit
					bulkSplit = bs
					runCase(fmt.Sprintf("bs%d", bs), cases[5], *diagReps) // sum_all
					bulkSplit = saved
				}
			}
		case plan == "lb":
			// A workgroup's last tree with or without its closing
			// barriers (the same bits), interleaved over two rounds.
			for round := 1; round <= 2; round++ {
				for _, lb := range []int{0, 1} {
					saved := treeLast
					treeLast = lb
					for _, c := range cases[5:9] { // sum_all, sum_dim, max_dim, argmax_dim
						runCase(fmt.Sprintf("lb%d", lb), c, *diagReps)
					}
					treeLast = saved
				}
			}
		case plan == "bl":
			// sum_all's partials folded by the bulk level's last workgroup
			// or by a level dispatch (the same bits), interleaved over
			// three rounds.
			for round := 1; round <= 3; round++ {
				for _, on := range []bool{false, true} {
					saved := bulkLastOn
					bulkLastOn = on
					runCase(fmt.Sprintf("bl%v", on), cases[5], *diagReps) // sum_all
					bulkLastOn = saved
				}
			}
		case plan == "sqpf":
			// scatter_add_rows' chunk size and its loads of the next chunk,
			// interleaved over two rounds.
			for round := 1; round <= 2; round++ {
				for _, sq := range []int{1, 2, 4} {
					for _, pf := range []int{0, 1, 2} {
						savedS, savedP := addSQ, addPF
						addSQ, addPF = sq, pf
						runCase(fmt.Sprintf("sq%dpf%d", sq, pf), cases[12], *diagReps) // scatter_add
						addSQ, addPF = savedS, savedP
					}
				}
			}
		case plan == "gu":
			// pad_backward's output words per thread, interleaved over
			// three rounds.
			for round := 1; round <= 3; round++ {
				for _, u := range []int{1, 2, 4, 8} {
					saved := gatherUnits
					gatherUnits = u
					runCase(fmt.Sprintf("gu%d", u), cases[3], *diagReps) // pad_backward reflect
					gatherUnits = saved
				}
			}
		case plan == "rep":
			// Back-to-back kernel times, as a benchmark loop (or torch's
			// CUDA-graph column in scripts/torch_bench.py) sees them: each
			// call's passes 20 times in its window (the mean reported),
			// clocks held up; cases that accumulate run once.
			d.SetSteadyClocks(300 * time.Millisecond)
			d.SetKernelRepeat(20)
			for round := 1; round <= 2; round++ {
				for _, i := range []int{0, 1, 2, 17, 3, 5, 6, 7, 8, 9, 10, 18, 11, 12, 13} {
					runCase(fmt.Sprintf("rep%d", round), cases[i], *diagReps)
				}
			}
			d.SetKernelRepeat(1)
			d.SetSteadyClocks(0)
		case plan == "window":
			// The kernel-time window's floor: the two stamps alone, around
			// 1 and 4 empty compute passes, then one tiny dispatch a call
			// and a repeat pass, clocks held up, over two rounds. H200
			// (medians of 20, both rounds alike): stamps alone 1.92 us, one
			// empty pass 5.38, four 14.50 (wgpu's compute pass costs ~3.2
			// us of GPU time with nothing in it), a 16-element pad 8.6-9.1
			// a call, 7.7 a repeat; torch's back-to-back launch of the same
			// pad (scripts/torch_bench.py, a CUDA graph) 1.5.
			d.SetSteadyClocks(300 * time.Millisecond)
			if err := d.WarmClocks(300 * time.Millisecond); err != nil {
				t.Fatal(err)
			}
			for round := 1; round <= 2; round++ {
				for _, n := range []int{0, 1, 4} {
					var ws []float64
					for range 20 {
						w, err := d.windowTime(n)
						if err != nil {
							t.Fatal(err)
						}
						ws = append(ws, us(w))
					}
					fmt.Printf("window%d  %d empty passes: median %.2f us, min %.2f\n", round, n, med(ws), minOf(ws))
				}
				runCase(fmt.Sprintf("window%d", round), cases[13], *diagReps) // tiny pad
			}
			d.SetSteadyClocks(0)
		case plan == "host":
			// A staged upload's host steps (25 and 64 MB), then the pad
			// and sum_dim calls' setup / device / wall, clocks held up.
			// H200: 25 MiB map 9 us, copy 840 (31 GB/s over 16
			// goroutines), unmap 9, encode + submit 63; 64 MiB 13 / 2008 /
			// 17 / 101: the copy into the mapped staging buffer is the
			// host's share of a call, not the map round trip.
			d.SetSteadyClocks(300 * time.Millisecond)
			for _, n := range []int{25 << 20, 64 << 20} {
				data := make([]byte, n)
				for i := range data {
					data[i] = byte(i)
				}
				var ms, cs, us_, ss []float64
				for range 10 {
					a, b, c, e, err := d.uploadPhases(data)
					if err != nil {
						t.Fatal(err)
					}
					ms, cs, us_, ss = append(ms, us(a)), append(cs, us(b)), append(us_, us(c)), append(ss, us(e))
				}
				fmt.Printf("host     upload %d MiB: map %.1f us, copy %.1f, unmap %.1f, encode+submit %.1f (medians of 10)\n", n>>20, med(ms), med(cs), med(us_), med(ss))
			}
			for _, i := range []int{0, 6, 11} { // pad constant, sum_dim, index_add
				runCase("host", cases[i], *diagReps)
			}
			d.SetSteadyClocks(0)
		case strings.HasPrefix(plan, "cases="):
			for _, c := range cases {
				if strings.HasPrefix(c.name, strings.TrimPrefix(plan, "cases=")) {
					runCase("case", c, *diagReps)
				}
			}
		default:
			fmt.Fprintf(os.Stderr, "unknown plan %q\n", plan)
		}
	}
}

func med(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func minOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}
