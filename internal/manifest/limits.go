package manifest

import (
	"fmt"
	"unicode/utf8"
)

// Limits bound what Decode accepts; zero values mean "no limit".
type Limits struct {
	// MaxDocuments bounds the documents of a stream, and of all the
	// streams that share a count (Counted): a render, or a command's inputs.
	MaxDocuments int
	MaxDepth     int
	// MaxExpandedBytes bounds one YAML document after alias expansion
	// (DefaultMaxExpandedBytes when 0).
	MaxExpandedBytes int64
	// Warn receives warnings (duplicate keys); nil: none are given.
	Warn func(msg string)

	docs *int // documents counted by every decode sharing it
}

// Counted is l with a new count of documents, shared by every decode
// given it (or a copy of it): MaxDocuments then bounds their sum, so that
// splitting a source into files does not pass the limit.
func (l Limits) Counted() Limits {
	l.docs = new(int)
	return l
}

// IsZero reports whether l sets no limit at all.
func (l Limits) IsZero() bool {
	return l.MaxDocuments == 0 && l.MaxDepth == 0 && l.MaxExpandedBytes == 0
}

// count counts n more documents (n < 0: fewer), doc being the stream's
// own count, and says whether MaxDocuments is passed.
func (l Limits) count(doc, n int) error {
	total := doc
	if l.docs != nil {
		*l.docs += n
		total = max(total, *l.docs)
	}
	if l.MaxDocuments <= 0 || total <= l.MaxDocuments || n <= 0 {
		return nil
	}
	where := ""
	if doc <= l.MaxDocuments {
		where = " in this file and those read before it"
	}
	return fmt.Errorf("more than %d documents%s; raise the environment variable CMP_DEFAULTS_MAX_DOCUMENTS if this is intended", l.MaxDocuments, where)
}

func (l Limits) warn(msg string) {
	if l.Warn != nil {
		l.Warn(msg)
	}
}

// maxDuplicateWarnings is how many duplicate keys of one document are
// named; the rest are counted in one more warning.
const maxDuplicateWarnings = 3

// shortKey is a key as a message quotes it: at most 100 bytes.
func shortKey(k string) string {
	if len(k) <= 100 {
		return k
	}
	i := 100
	for i > 0 && !utf8.RuneStart(k[i]) {
		i--
	}
	return k[:i] + "..."
}

// DefaultLimits are generous for real manifests and small enough to stop
// hostile input early.
var DefaultLimits = Limits{MaxDocuments: 200000, MaxDepth: MaxDepth, MaxExpandedBytes: DefaultMaxExpandedBytes}
