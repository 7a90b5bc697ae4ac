package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cmp-defaults/cmp-defaults/internal/manifest"
	"github.com/cmp-defaults/cmp-defaults/internal/quote"
	"github.com/cmp-defaults/cmp-defaults/internal/settings"
)

// DefaultMaxBytes bounds how much one render reads from the repository.
const DefaultMaxBytes = settings.DefaultMaxInput

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
		return fmt.Errorf("reading %s brings the source to more than %d bytes; split the application or raise CMP_DEFAULTS_MAX_INPUT_BYTES", quote.Name(path), b.max)
	}
	return nil
}

// limit is the budget's size, the bound of one YAML file's expansion too.
func (b *budget) limit() int64 {
	if b == nil {
		return DefaultMaxBytes
	}
	return b.max
}

// readBounded reads a regular file after checking its size against maxFile
// (when > 0) and the budget, so that nothing is reserved for a huge file;
// a file that grows while it is read is cut at the checked size and refused.
func readBounded(path, display string, maxFile int64, b *budget) ([]byte, error) {
	// Stat before opening: opening a FIFO would wait for a writer.
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", quote.Name(display))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", quote.Name(display))
	}
	if maxFile > 0 && fi.Size() > maxFile {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d such a file may have", quote.Name(display), fi.Size(), maxFile)
	}
	if err := b.take(display, fi.Size()); err != nil {
		return nil, err
	}
	data := make([]byte, 0, fi.Size()+1)
	buf := bytes.NewBuffer(data)
	if _, err := buf.ReadFrom(io.LimitReader(f, fi.Size()+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > fi.Size() {
		return nil, fmt.Errorf("%s grew while it was read", quote.Name(display))
	}
	return buf.Bytes(), nil
}

// takeFile accounts for a file by its size, before it is read.
func (b *budget) takeFile(path, display string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil // the reader reports it
	}
	return b.take(display, fi.Size())
}

// scanChart accounts for every file of a chart before Helm's loader reads
// it: regular files by size, chart archives by their decompressed size
// (nested archives included), and checks every YAML file, inside archives
// too, against the alias limits. Helm's loader expands YAML itself, so
// this has to happen first.
func scanChart(ctx context.Context, dir, display string, b *budget) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return err
		}
		name := filepath.Join(display, rel(dir, p))
		switch {
		case isArchive(p):
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return scanArchive(ctx, f, name, b, 0)
		case isYAMLName(p):
			data, err := readBounded(p, name, 0, b)
			if err != nil {
				return err
			}
			if err := manifest.CheckYAML(data, b.limit()); err != nil {
				return fmt.Errorf("%s: %w", quote.Name(name), err)
			}
			return nil
		}
		return b.take(name, fi.Size())
	})
}

func isArchive(p string) bool {
	return strings.HasSuffix(p, ".tgz") || strings.HasSuffix(p, ".tar.gz")
}

func isYAMLName(p string) bool {
	return strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".json")
}

// scanArchive reads a gzipped tar stream, counting every decompressed byte
// against the budget as it goes (never more than the budget is read).
func scanArchive(ctx context.Context, r io.Reader, display string, b *budget, depth int) error {
	if depth > 10 {
		return fmt.Errorf("%s: chart archives nested more than 10 deep", quote.Name(display))
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil // not gzip: Helm's loader reports it
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil // Helm's loader reports a broken archive
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		name := display + ":" + h.Name
		switch h.Typeflag {
		case tar.TypeReg, 0: // 0: a regular file in old archives
		case tar.TypeSymlink, tar.TypeLink:
			// Helm's loader would read what the link names; a chart
			// archive has no need of links.
			return fmt.Errorf("%s is a link (to %q); chart archives with links are refused: package the chart with the files themselves", quote.Name(name), h.Linkname)
		default:
			// Every other entry type is counted too: Helm's loader reads
			// the content of entries whatever their type.
			if _, err := io.Copy(io.Discard, &counting{r: tr, b: b, name: name}); err != nil {
				return err
			}
			continue
		}
		switch {
		case isArchive(h.Name):
			if err := scanArchive(ctx, &counting{r: tr, b: b, name: name}, name, b, depth+1); err != nil {
				return err
			}
		case isYAMLName(h.Name):
			var buf bytes.Buffer
			if _, err := io.Copy(&buf, &counting{r: tr, b: b, name: name}); err != nil {
				return err
			}
			if err := manifest.CheckYAML(buf.Bytes(), b.limit()); err != nil {
				return fmt.Errorf("%s: %w", quote.Name(name), err)
			}
		default:
			if _, err := io.Copy(io.Discard, &counting{r: tr, b: b, name: name}); err != nil {
				return err
			}
		}
	}
}

// counting takes every byte read from r from the budget.
type counting struct {
	r    io.Reader
	b    *budget
	name string
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		if berr := c.b.take(c.name+" (decompressed)", int64(n)); berr != nil {
			return n, berr
		}
	}
	return n, err
}
