package render

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// DefaultMaxBytes bounds how much one render reads from the repository.
const DefaultMaxBytes = 64 << 20

// budget counts the bytes a render reads, so a huge or hostile source
// fails with a clear error instead of exhausting the sidecar's memory.
type budget struct {
	mu   sync.Mutex
	max  int64
	used int64
}

func newBudget(max int64) *budget {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	return &budget{max: max}
}

// take accounts for n bytes of path.
func (b *budget) take(path string, n int64) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used += n
	if b.used > b.max {
		return fmt.Errorf("reading %s brings the source to more than %d bytes; split the application or raise CMP_DEFAULTS_MAX_INPUT_BYTES", path, b.max)
	}
	return nil
}

// takeFile accounts for a file by its size, before it is read.
func (b *budget) takeFile(path, display string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil // the reader reports it
	}
	return b.take(display, fi.Size())
}

// takeTree accounts for every regular file below dir (a chart, read whole
// by Helm's loader).
func (b *budget) takeTree(dir, display string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil || !fi.Mode().IsRegular() {
			return err
		}
		return b.take(filepath.Join(display, rel(dir, p)), fi.Size())
	})
}
