package guard

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWatchEndsARunOverTheHeapBudget(t *testing.T) {
	ctx, stop := Watch(context.Background(), 64<<20)
	defer stop()
	var keep [][]byte
	for i := 0; i < 200 && ctx.Err() == nil; i++ {
		keep = append(keep, make([]byte, 1<<20))
		time.Sleep(time.Millisecond)
	}
	select {
	case <-ctx.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("not cancelled")
	}
	if !errors.Is(context.Cause(ctx), ErrMemory) {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
	_ = keep
}

//go:noinline
func deep(ctx context.Context, n int) int {
	var pad [1024]byte
	pad[n%1024] = byte(n)
	if ctx.Err() != nil || n == 0 {
		return int(pad[0])
	}
	return deep(ctx, n-1) + int(pad[n%1024])
}

func TestWatchEndsEndlessRecursion(t *testing.T) {
	ctx, stop := Watch(context.Background(), 1<<30)
	defer stop()
	done := make(chan struct{})
	go func() { deep(ctx, 1<<20); close(done) }() // about 1 GiB of stack if never stopped
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("recursion not stopped")
	}
	if cause := context.Cause(ctx); !errors.Is(cause, ErrMemory) {
		t.Fatalf("cause %v", cause)
	}
}

func TestWithinReturnsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Within(ctx, func() (int, error) { select {} })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	v, err := Within(context.Background(), func() (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatalf("got %v %v", v, err)
	}
}
