package gpu

import (
	"fmt"

	"github.com/cogentcore/webgpu/wgpu"
	"github.com/fkc-playground/fkc/shaders/wgsl"
)

// Pipelines: each kernel is compiled once per device and cached.

// pipe is one compiled kernel: a pipeline with its explicit bind group
// layout (the JS binding has no GetBindGroupLayout).
type pipe struct {
	name     string
	layout   *wgpu.BindGroupLayout
	pipeline *wgpu.ComputePipeline
	rw       []bool // per binding: read_write storage (else read-only storage)
}

// kernelSpec names one pipeline: the WGSL file, its specialisation and entry
// point, and the access mode of each binding in order.
type kernelSpec struct {
	name  string // cache key and label, e.g. "pad_reflect_b4"
	file  string
	entry string
	defs  []wgsl.Def
	rw    []bool
	src   string // a whole module instead of file+defs (tests)
}

// pipeline returns the cached pipeline for spec, building it on first use.
// Call with d.mu held.
func (d *Device) pipeline(s kernelSpec) (*pipe, error) {
	// A closed or lost device builds nothing (Close released it: building
	// would use the released wgpu objects); begin reports the same error.
	if err := d.lostErr(); err != nil {
		return nil, err
	}
	key := s.name + ":" + s.entry
	if d.rec != nil && s.src == "" {
		// a chain's outputs are device tensors, whose payload starts
		// devGuardWords in (tensor.go)
		s.defs = append(s.defs[:len(s.defs):len(s.defs)], wgsl.Def{Name: "GUARD", Value: devGuardWords})
		key += ":dev"
	}
	if p, ok := d.pipes[key]; ok {
		return p, nil
	}
	p, err := d.build(s)
	if err != nil {
		return nil, err
	}
	if d.pipes == nil {
		d.pipes = map[string]*pipe{}
	}
	d.pipes[key] = p
	return p, nil
}

// build compiles one pipeline, uncached. Call with d.mu held.
func (d *Device) build(s kernelSpec) (*pipe, error) {
	src := s.src
	if src == "" {
		var err error
		if src, err = wgsl.Module(s.file, s.defs...); err != nil {
			return nil, err
		}
	}
	d.plat.pushScopes(d)
	mod, err := d.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
		Label:          s.name,
		WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: src},
	})
	if err != nil {
		d.plat.popScopes(d)
		return nil, fmt.Errorf("gpu: %s: shader module: %v", s.name, err)
	}
	defer mod.Release()
	entries := make([]wgpu.BindGroupLayoutEntry, len(s.rw))
	for i, rw := range s.rw {
		t := wgpu.BufferBindingTypeReadOnlyStorage
		if rw {
			t = wgpu.BufferBindingTypeStorage
		}
		entries[i] = wgpu.BindGroupLayoutEntry{
			Binding:    uint32(i),
			Visibility: wgpu.ShaderStageCompute,
			Buffer:     wgpu.BufferBindingLayout{Type: t},
		}
	}
	bgl, err := d.dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Label: s.name, Entries: entries})
	if err != nil {
		d.plat.popScopes(d)
		return nil, fmt.Errorf("gpu: %s: bind group layout: %v", s.name, err)
	}
	pl, err := d.dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{Label: s.name, BindGroupLayouts: []*wgpu.BindGroupLayout{bgl}})
	if err != nil {
		d.plat.popScopes(d)
		bgl.Release()
		return nil, fmt.Errorf("gpu: %s: pipeline layout: %v", s.name, err)
	}
	defer pl.Release()
	cp, err := d.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{
		Layout:  pl,
		Compute: wgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: s.entry},
	})
	if err == nil {
		err = d.plat.popScopes(d)
	} else {
		d.plat.popScopes(d)
	}
	if err != nil {
		bgl.Release()
		return nil, fmt.Errorf("gpu: %s: compute pipeline: %v", s.name, err)
	}
	return &pipe{name: s.name, layout: bgl, pipeline: cp, rw: s.rw}, nil
}

// entries returns the pipelines of several entry points of one spec.
// Call with d.mu held.
func (d *Device) entries(s kernelSpec, names ...string) ([]*pipe, error) {
	ps := make([]*pipe, len(names))
	for i, e := range names {
		s.entry = e
		p, err := d.pipeline(s)
		if err != nil {
			return nil, err
		}
		ps[i] = p
	}
	return ps, nil
}
