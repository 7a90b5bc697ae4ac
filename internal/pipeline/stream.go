package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/defaults"
	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/operators"
	"github.com/cmp-defaults/cmp-defaults/internal/warn"
)

// Stream is the path of fill: objects are filled and encoded one by one as
// they are decoded, so that the input is never held whole.
type Stream struct {
	Timeout     time.Duration
	TimeoutName string // the setting that raises Timeout, for the message
	Format      string
	Out         io.Writer
	// Store and Releases are the selection the engine was compiled from:
	// objects of kinds a selected release does not serve are warned about,
	// or refused (StrictError) when Strict.
	Store    *operators.Store
	Releases []*operators.Resolution
	Strict   bool
	// Warnings has the warnings about the objects added as they arise,
	// among those of the reading (the caller's) in the order of the input.
	Warnings *warn.List
}

// Run fills every object each reads with e, under s.Timeout and ctx.
func (s Stream) Run(parent context.Context, e *defaults.Engine, each func(func(manifest.Object) error) error) error {
	enc, err := manifest.NewEncoder(s.Out, s.Format)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(parent, s.Timeout)
	defer cancel()
	e = e.WithContext(ctx)
	var u Unserved
	err = each(func(ob manifest.Object) error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if err := e.FillObject(ob, nil); err != nil {
			return err
		}
		rw, err := e.RewriteWarnings(ob)
		if err != nil {
			return err
		}
		s.Warnings.Add(warn.Rewrites, rw...)
		ws := u.Check(s.Store, s.Releases, []manifest.Object{ob})
		if s.Strict && len(ws) > 0 {
			return &StrictError{ws[0]}
		}
		s.Warnings.Add(warn.General, ws...)
		s.Warnings.Add(warn.General, u.Hints...)
		u.Hints = nil
		return enc.Encode(ob)
	})
	if cause := context.Cause(ctx); cause != nil {
		if errors.Is(cause, context.DeadlineExceeded) {
			return fmt.Errorf("gave up after %s while filling; raise %s if the input is meant to be this large", s.Timeout, s.TimeoutName)
		}
		return cause
	}
	if err != nil {
		return err
	}
	return enc.Close()
}
