package action

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// Rendering is how every command that renders a source directory reads
// it: the repository root nothing outside of which is read, and how long
// the run may take. cmd/ binds it with one flag set (--repo-root,
// --timeout) on each of them.
type Rendering struct {
	RepoRoot string        // "": the nearest parent with .git
	Timeout  time.Duration // 0: settings.DefaultTimeout
}

// timeout is the run's deadline.
func (r Rendering) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return settings.DefaultTimeout
}

// within runs fn under r's deadline, tells the supervisor of it, and names
// the flag that raises it when it runs out.
func (env *Env) within(ctx context.Context, r Rendering, fn func(context.Context) error) error {
	d := r.timeout()
	env.deadline(d, settings.CLI.Of(settings.Timeout))
	run, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := fn(run)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(run), context.DeadlineExceeded) && !strings.HasPrefix(err.Error(), "gave up after") {
		return fmt.Errorf("gave up after %s (%v); make the input smaller or raise %s", d, err, settings.CLI.Of(settings.Timeout))
	}
	return err
}
