package supervisor

import "io"

// output keeps the worker's stdout in chunks that are never copied: a
// doubling buffer holds up to twice the output while it grows, and copies
// all of it each time. Chunks grow from 64 KiB to 4 MiB, so a small
// output stays small and a large one wastes at most one chunk's slack.
type output struct {
	chunks [][]byte
	n      int64
}

const (
	firstChunk = 64 << 10
	lastChunk  = 4 << 20
)

// readFrom reads r to its end; over says it passed max bytes, and then
// it stops reading.
func (o *output) readFrom(r io.Reader, max int64) (over bool, err error) {
	for {
		c := o.room()
		n, err := r.Read(c[len(c):cap(c)])
		o.chunks[len(o.chunks)-1] = c[:len(c)+n]
		o.n += int64(n)
		if o.n > max {
			return true, nil
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// room is the last chunk, with room to read into.
func (o *output) room() []byte {
	if k := len(o.chunks); k > 0 && len(o.chunks[k-1]) < cap(o.chunks[k-1]) {
		return o.chunks[k-1]
	}
	size := firstChunk
	if k := len(o.chunks); k > 0 {
		size = min(2*cap(o.chunks[k-1]), lastChunk)
	}
	o.chunks = append(o.chunks, make([]byte, 0, size))
	return o.chunks[len(o.chunks)-1]
}
