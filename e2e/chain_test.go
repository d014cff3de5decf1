package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/fkc-playground/fkc/tensor"
)

type chainStep struct {
	op     string
	flags  []string
	inputs map[string]any // *tensor.Tensor, or int K: call K's result
}

// chainRequest is fkc.chain's request for steps, as JSON.
func chainRequest(t *testing.T, steps []chainStep) string {
	t.Helper()
	var calls []map[string]any
	for _, s := range steps {
		in := map[string]any{}
		for name, v := range s.inputs {
			switch v := v.(type) {
			case *tensor.Tensor:
				in[name] = b64npy(v)
			case int:
				in[name] = map[string]int{"result": v}
			}
		}
		calls = append(calls, map[string]any{"op": s.op, "flags": s.flags, "inputs": in})
	}
	req, _ := json.Marshal(map[string]any{"backend": "webgpu", "calls": calls})
	return string(req)
}

// Calls chained in one WebGPU submission (fkc.chain, results kept on the
// GPU between calls) give bitwise the results of the same calls made one
// by one with fkc.run, each from the last one's .npy.
func TestChainWebGPU(t *testing.T) {
	ctx := tab(t, nil)
	open(t, ctx, "")
	if !eval[bool](t, ctx, `fkc.ready.then(() => fkc.gpu().available)`) {
		t.Fatal("no WebGPU adapter in the test browser")
	}
	rng := rand.New(rand.NewSource(7))
	random := func(dt tensor.DType, shape ...int) *tensor.Tensor {
		x := tensor.New(dt, shape)
		for i := range x.NumElems() {
			x.Set(i, float64(rng.Intn(64)-32)/4)
		}
		return x
	}
	indices := func(bound int, shape ...int) *tensor.Tensor {
		x := tensor.New(tensor.U32, shape)
		for i := range x.U32() {
			x.U32()[i] = uint32(rng.Intn(bound))
		}
		return x
	}
	var cases [][]chainStep
	for _, dt := range []tensor.DType{tensor.F32, tensor.F16} {
		cases = append(cases, []chainStep{
			{"pad", []string{"--mode", "reflect", "--padding", "0:0,0:0,2:2,2:2"}, map[string]any{"x": random(dt, 2, 3, 17, 33)}},
			{"sum", []string{"--dim", "3"}, map[string]any{"x": 0}},
			{"argmax", []string{"--dim", "2"}, map[string]any{"x": 1}},
		})
	}
	cases = append(cases, []chainStep{
		{"gather", []string{"--dim", "1"}, map[string]any{"data": random(tensor.F32, 40, 70), "indices": indices(70, 40, 70)}},
		{"index_add", []string{"--dim", "1"}, map[string]any{"base": random(tensor.F32, 40, 70), "indices": indices(70, 70), "src": 0}},
	})
	for _, steps := range cases {
		name := steps[0].op + ">" + steps[len(steps)-1].op
		req := chainRequest(t, steps)
		type reply struct {
			Results []runReply `json:"results"`
			MS      float64    `json:"ms"`
			Err     string     `json:"err"`
		}
		var r reply
		s := eval[string](t, ctx, fmt.Sprintf(`fkc.chain(%s).then(r => JSON.stringify(r), e => JSON.stringify({err: e.message}))`, req))
		if err := json.Unmarshal([]byte(s), &r); err != nil || r.Err != "" || len(r.Results) != len(steps) {
			t.Fatalf("%s: fkc.chain: %s", name, short(s))
		}
		var got []*tensor.Tensor
		for _, res := range r.Results {
			got = append(got, decodeNpy(t, res.NPY))
		}
		for i, st := range steps {
			in := map[string]*tensor.Tensor{}
			for k, v := range st.inputs {
				if x, ok := v.(*tensor.Tensor); ok {
					in[k] = x
				} else {
					in[k] = got[v.(int)] // the one-by-one call reads the chain's earlier result, checked equal below
				}
			}
			one := fkcRun(t, ctx, "webgpu", st.op, st.flags, in)
			if one.Err != "" {
				t.Fatalf("%s: call %d one by one: %s", name, i, one.Err)
			}
			if d := sameTensor(got[i], decodeNpy(t, one.NPY)); d != "" {
				t.Errorf("%s: call %d (%s): chained and one by one differ: %s", name, i, st.op, d)
			}
		}
		t.Logf("%s: %d calls in one submission, %.2f ms", name, len(steps), r.MS)
	}
	// refusals name what is wrong
	for _, bad := range []struct{ req, want string }{
		{`{backend: "webgpu", calls: [{op: "sum", flags: ["--dim", "0"], inputs: {x: {result: 0}}}]}`, "must name an earlier call"},
		{`{backend: "cpu", calls: [{op: "sum", flags: ["--dim", "0"], inputs: {x: {shape: [2], dtype: "F32", fill: 1}}}]}`, "records calls on the GPU"},
		{`{backend: "webgpu", calls: []}`, "a chain takes 1 to"},
		{`{backend: "webgpu", calls: [{op: "sum", flags: ["--dim", "0"], inputs: {x: {shape: [2, 3], dtype: "F32", fill: 1}}}, {op: "pad", flags: ["--mode", "reflect", "--padding", "5:5"], inputs: {x: {result: 0}}}]}`, "calls[1]"},
	} {
		msg := eval[string](t, ctx, `fkc.chain(`+bad.req+`).then(() => "resolved", e => e.message)`)
		if !strings.HasPrefix(msg, "fkc: ") || !strings.Contains(msg, bad.want) {
			t.Errorf("fkc.chain(%s): %q, want it to say %q", bad.req, msg, bad.want)
		}
	}
}
