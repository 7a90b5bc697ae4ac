// Package guard bounds a run's memory: a watchdog reads the Go runtime's
// own accounting of heap and goroutine stacks and ends the run with a clear
// error when either passes its budget, before the runtime would crash
// (out of memory, or a stack overflow from endless template recursion).
// The SDKs that render (Helm, kustomize) cannot be interrupted, so the
// watchdog cancels the run's context; the caller returns and exits.
package guard

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// DefaultMaxMemory is the resident memory a run may use (the supervisor
// kills a worker past it); the watchdog here ends the run a little
// earlier, naming the step.
const DefaultMaxMemory = settings.DefaultMaxMemory

// HeapShare is the part of the memory budget the watchdog lets the heap
// have: the rest is the binary's code and runtime (about 60 MiB resident)
// and garbage not yet collected.
func HeapShare(budget int64) int64 { return budget / 4 * 3 }

// MaxStacks bounds the goroutine stacks together. Rendering needs a few
// MiB; only a template that calls itself (tpl or include) gets near this.
const MaxStacks = 64 << 20

// ErrMemory is the cause of a run ended by the watchdog.
var ErrMemory = errors.New("memory budget exceeded")

// Watch returns a context that is cancelled, with an error wrapping
// ErrMemory as its cause, when the heap passes HeapShare(budget) bytes or
// the goroutine stacks pass MaxStacks. stop ends the watchdog.
func Watch(parent context.Context, budget int64) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	maxHeap := HeapShare(budget)
	// Let the collector work harder near the budget, so that garbage not
	// yet collected does not count as use.
	LowerMemoryLimit(maxHeap / 10 * 9)
	done := make(chan struct{})
	go func() {
		samples := []metrics.Sample{
			{Name: "/memory/classes/heap/objects:bytes"},
			{Name: "/memory/classes/heap/stacks:bytes"},
		}
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			metrics.Read(samples)
			heap, stacks := value(samples[0]), value(samples[1])
			switch {
			case stacks > MaxStacks:
				cancel(fmt.Errorf("%w: goroutine stacks passed %d MiB, which only a template that calls itself without end reaches "+
					"(a tpl or include of its own text); break the recursion", ErrMemory, MaxStacks>>20))
				return
			case heap > uint64(maxHeap):
				cancel(fmt.Errorf("%w: the run used more than %d MiB of its %d MiB of memory; make the source smaller, or raise CMP_DEFAULTS_MAX_MEMORY_BYTES "+
					"(and the sidecar's memory limit) if it is meant to be this large", ErrMemory, maxHeap>>20, budget>>20))
				return
			}
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// LowerMemoryLimit lowers the Go runtime's soft memory limit to limit
// bytes (never raises it): the one place the process sets it.
func LowerMemoryLimit(limit int64) {
	if limit < debug.SetMemoryLimit(-1) {
		debug.SetMemoryLimit(limit)
	}
}

func value(s metrics.Sample) uint64 {
	if s.Value.Kind() == metrics.KindUint64 {
		return s.Value.Uint64()
	}
	return 0
}

// Within runs f and returns its result, or ctx's error as soon as ctx is
// done. f keeps running in the background then: the SDKs used to render
// cannot be interrupted, and the caller is expected to exit.
func Within[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
