package gpu

import (
	"math/bits"
	"time"

	"github.com/cogentcore/webgpu/wgpu"
)

// The buffer pool: buffers are kept by usage and size class and handed to
// later calls; a device with poolIdle set empties it when calls stop.

// poolKey: pooled buffers are reused for the same usage and size class.
type poolKey struct {
	usage    wgpu.BufferUsage
	capacity uint64
}

// sizeClass rounds a buffer size up so that calls of nearby sizes share
// pooled buffers: powers of two up to 64 KiB, then steps of an eighth of
// the power of two below (at most 12.5 % unused).
func sizeClass(n uint64) uint64 {
	if n <= 64<<10 {
		c := uint64(256)
		for c < n {
			c <<= 1
		}
		return c
	}
	p := uint64(1) << (63 - bits.LeadingZeros64(n))
	step := p / 8
	return (n + step - 1) / step * step
}

// get returns a buffer of at least size bytes: a pooled one when the
// caller does not need its content zeroed, else a new one (WebGPU zero-
// fills new buffers). Reusing buffers keeps allocation, mapping and
// first-touch costs out of every call but the first of a size.
func (j *job) get(what string, size uint64, usage wgpu.BufferUsage, zero bool) *buffer {
	if j.err != nil || !j.checkSize(what, size) {
		return nil
	}
	d := j.d
	capacity := size
	if d.poolCap > 0 {
		capacity = sizeClass(size)
		if j.d.limitErr(j.op, what, capacity) != nil {
			capacity = size
		}
		k := poolKey{usage, capacity}
		if list := d.pool[k]; !zero && len(list) > 0 {
			b := list[len(list)-1]
			d.pool[k] = list[:len(list)-1]
			d.pooled -= capacity
			d.poolHits++
			b.size = size
			j.bufs = append(j.bufs, b)
			return b
		}
	}
	wb, err := d.dev.CreateBuffer(&wgpu.BufferDescriptor{Label: j.op + ":" + what, Size: capacity, Usage: usage})
	if err != nil {
		j.fail("gpu: %s: create %s buffer (%d bytes): %v", j.op, what, capacity, err)
		return nil
	}
	b := &buffer{b: wb, size: size, capacity: capacity, usage: usage}
	j.bufs = append(j.bufs, b)
	return b
}

// recycle returns a call's buffers to the pool within its budget
// (Device.poolCap), making room by destroying the buffers pooled longest
// ago: a long process whose shapes change keeps the sizes it uses now,
// not the first ones that filled the pool. A buffer larger than the whole
// budget is destroyed.
func (d *Device) recycle(bufs []*buffer) {
	for _, b := range bufs {
		if d.poolCap == 0 || b.capacity > d.poolCap {
			b.b.Destroy()
			b.b.Release()
			continue
		}
		for d.pooled+b.capacity > d.poolCap {
			d.evictOldest()
		}
		if d.pool == nil {
			d.pool = map[poolKey][]*buffer{}
		}
		k := poolKey{b.usage, b.capacity}
		d.pool[k] = append(d.pool[k], b)
		d.pooled += b.capacity
		d.poolSeq++
		b.pooledAt = d.poolSeq
	}
	d.armIdleDrain()
}

// armIdleDrain (d.mu held) schedules the pool's emptying poolIdle after
// this call: a timer that finds a later call has used the pool since
// leaves it (that call re-armed the timer).
func (d *Device) armIdleDrain() {
	if d.poolIdle <= 0 || d.pooled == 0 {
		return
	}
	d.lastUse = time.Now()
	if d.idleTimer != nil {
		d.idleTimer.Reset(d.poolIdle)
		return
	}
	d.idleTimer = time.AfterFunc(d.poolIdle, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if time.Since(d.lastUse) >= d.poolIdle && !d.wedged && d.lostErr() == nil {
			d.drainPool()
		}
	})
}

// evictOldest destroys the pooled buffer that was returned longest ago.
func (d *Device) evictOldest() {
	var ok bool
	var key poolKey
	at := -1
	for k, list := range d.pool {
		for i, b := range list {
			if !ok || b.pooledAt < d.pool[key][at].pooledAt {
				ok, key, at = true, k, i
			}
		}
	}
	if !ok {
		return
	}
	list := d.pool[key]
	b := list[at]
	d.pool[key] = append(list[:at], list[at+1:]...)
	d.pooled -= b.capacity
	b.b.Destroy()
	b.b.Release()
}

// drainPool destroys every pooled buffer.
func (d *Device) drainPool() {
	for k, list := range d.pool {
		for _, b := range list {
			b.b.Destroy()
			b.b.Release()
		}
		delete(d.pool, k)
	}
	d.pooled = 0
}
