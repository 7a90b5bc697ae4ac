// Package manifest decodes YAML/JSON streams into Kubernetes objects and
// encodes them back, deterministically.
//
// Numbers follow Kubernetes' own JSON rules (integers become int64, everything
// else float64) so that a decode/encode round trip does not turn 3 into 3.0.
package manifest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/cmp-defaults/cmp-defaults/internal/quote"
)

// Object is one Kubernetes object and where it came from.
type Object struct {
	Data   map[string]any
	Source string // file, template or "stdin"
	Doc    int    // 1-based document number within Source
	Line   int    // 1-based line where the document starts
	// Origin, for a kustomize build, is the file the object was read from
	// and the kustomizations that changed it (kustomize's origin tracking).
	Origin string
}

// Where says where the object came from, for error messages.
func (o Object) Where() string {
	src := quote.Name(o.Source)
	if o.Line == 0 && o.Origin != "" {
		return fmt.Sprintf("%s: document %d (%s)", src, o.Doc, quote.Line(o.Origin))
	}
	if o.Line == 0 { // no line in the source file, e.g. a kustomize build
		return fmt.Sprintf("%s: document %d", src, o.Doc)
	}
	return fmt.Sprintf("%s: document %d (line %d)", src, o.Doc, o.Line)
}

// ID names the object as kubectl would: apiVersion kind namespace/name.
func (o Object) ID() string {
	md, _ := o.Data["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if ns, _ := md["namespace"].(string); ns != "" {
		name = ns + "/" + name
	}
	if name == "" {
		name = "(no name)"
	}
	av, _ := o.Data["apiVersion"].(string)
	k, _ := o.Data["kind"].(string)
	return fmt.Sprintf("%s %s %s", av, k, name)
}

// Location names a document for reports: "file: document 2, line 14", or
// without the line when there is none.
func Location(source string, doc, line int) string {
	if line == 0 {
		return fmt.Sprintf("%s: document %d", quote.Name(source), doc)
	}
	return fmt.Sprintf("%s: document %d, line %d", quote.Name(source), doc, line)
}

// Error is a decode error with its location.
type Error struct {
	Source string
	Doc    int
	Line   int
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: document %d (line %d): %s", quote.Name(e.Source), e.Doc, e.Line, e.Msg)
}

type chunk struct {
	data []byte
	line int
}

// split cuts a YAML stream at "---" lines, remembering each document's first line.
func split(data []byte) []chunk {
	var out []chunk
	start, startLine, line := 0, 1, 1
	for pos := 0; pos < len(data); {
		end := bytes.IndexByte(data[pos:], '\n')
		next := len(data)
		if end >= 0 {
			next = pos + end + 1
		}
		l := data[pos:next]
		if isSeparator(l) {
			out = append(out, chunk{data[start:pos], startLine})
			start, startLine = next, line+1
		}
		pos = next
		line++
	}
	return append(out, chunk{data[start:], startLine})
}

func isSeparator(l []byte) bool {
	l = bytes.TrimRight(l, "\r\n")
	if !bytes.HasPrefix(l, []byte("---")) && !bytes.Equal(l, []byte("...")) {
		return false
	}
	rest := bytes.TrimSpace(l[3:])
	return len(rest) == 0 || rest[0] == '#'
}

// blank reports whether a chunk holds no YAML content (only comments and space).
func blank(b []byte) bool {
	for _, l := range bytes.Split(b, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' && !bytes.HasPrefix(t, []byte("%")) {
			return false
		}
	}
	return true
}

var lineRe = regexp.MustCompile(`line (\d+)`)

// shiftLines makes YAML parser line numbers absolute within the file.
func shiftLines(msg string, first int) string {
	return lineRe.ReplaceAllStringFunc(msg, func(m string) string {
		n, _ := strconv.Atoi(m[5:])
		return "line " + strconv.Itoa(n+first-1)
	})
}

// Decode reads every object in a YAML or JSON stream. Empty documents are
// skipped; List kinds are flattened.
func Decode(source string, data []byte) ([]Object, error) {
	return DecodeWithLimits(source, data, DefaultLimits)
}

// DecodeWithLimits is Decode with explicit limits.
func DecodeWithLimits(source string, data []byte, lim Limits) ([]Object, error) {
	var out []Object
	err := Each(source, data, lim, func(o Object) error {
		out = append(out, o)
		return nil
	})
	return out, err
}

// Each decodes the stream one document at a time and calls fn for every
// object, so a caller can fill and encode without holding all objects.
func Each(source string, data []byte, lim Limits, fn func(Object) error) error {
	if isJSON(data) {
		return eachJSON(source, data, lim, fn)
	}
	doc := 0
	for _, c := range split(data) {
		if err := yamlChunk(source, &doc, c, lim, fn); err != nil {
			return err
		}
	}
	return nil
}

// EachReader is Each over a reader of at most max bytes, holding one
// document at a time: a large stream never sits in memory whole.
func EachReader(source string, r io.Reader, max int64, lim Limits, fn func(Object) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(4096)
	if isJSON(head) {
		data, err := io.ReadAll(io.LimitReader(br, max+1))
		if err != nil {
			return fmt.Errorf("%s: %v", quote.Name(source), err)
		}
		if int64(len(data)) > max {
			return TooLarge(source, max)
		}
		return eachJSON(source, data, lim, fn)
	}
	var (
		cur       []byte
		doc, read int
		line      = 1
		startLine = 1
	)
	for {
		l, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull { // a line longer than the buffer
			cur = append(cur, l...)
			read += len(l)
			if int64(read) > max {
				return TooLarge(source, max)
			}
			l, err = br.ReadSlice('\n')
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s: %v", quote.Name(source), err)
		}
		read += len(l)
		if int64(read) > max {
			return TooLarge(source, max)
		}
		if isSeparator(l) {
			if err := yamlChunk(source, &doc, chunk{cur, startLine}, lim, fn); err != nil {
				return err
			}
			cur, startLine = cur[:0], line+1
		} else {
			cur = append(cur, l...)
		}
		line++
		if err == io.EOF {
			return yamlChunk(source, &doc, chunk{cur, startLine}, lim, fn)
		}
	}
}

// TooLarge is the error for an input over the size limit.
func TooLarge(source string, max int64) error {
	return fmt.Errorf("%s: input is larger than %d bytes; raise CMP_DEFAULTS_MAX_INPUT_BYTES if this is intended", quote.Name(source), max)
}

func isJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// quotedKey reports whether data starts like a JSON object: '{' then a
// quoted key or '}'.
func quotedKey(data []byte) bool {
	t := bytes.TrimLeft(bytes.TrimLeft(data, " \t\r\n")[1:], " \t\r\n")
	return len(t) > 0 && (t[0] == '"' || t[0] == '}')
}

func eachJSON(source string, data []byte, lim Limits, fn func(Object) error) error {
	objs, err := decodeJSONStream(source, data, lim)
	if e, ok := err.(*Error); ok && strings.HasPrefix(e.Msg, "malformed JSON") && !quotedKey(data) {
		// YAML may start with '{' too (a flow mapping, a template left
		// unrendered): read it as YAML, whose error is the one that helps.
		// Text starting with {" stays JSON.
		doc := 0
		for _, c := range split(data) {
			if err := yamlChunk(source, &doc, c, lim, fn); err != nil {
				return err
			}
		}
		return nil
	}
	if err != nil {
		return err
	}
	for _, o := range objs {
		if err := fn(o); err != nil {
			return err
		}
	}
	return nil
}

// yamlChunk decodes the YAML documents of one chunk (each counted in
// *doc) and hands their objects to fn. A chunk normally holds one document,
// but a document that starts on its "---" line, or line breaks other than
// LF (CR, NEL, U+2028), put several in one chunk: every one is read, none
// is dropped.
func yamlChunk(source string, doc *int, c chunk, lim Limits, fn func(Object) error) error {
	if blank(c.data) {
		return nil
	}
	if err := checkChunk(c.data, lim.MaxExpandedBytes); err != nil {
		return &Error{source, *doc + 1, c.line, err.Error()}
	}
	dec := yamlv2.NewDecoder(bytes.NewReader(c.data))
	dec.SetStrict(true) // reports duplicate keys; see duplicates
	for i, first := 0, true; ; i, first = i+1, false {
		var raw any
		err := dec.Decode(&raw)
		if err == io.EOF {
			return nil
		}
		*doc++
		if te, ok := err.(*yamlv2.TypeError); ok && isDuplicateKeys(te) {
			// Like kubectl and Argo CD, the last of duplicate keys wins:
			// decode the document again without strict mode, and say so.
			raw, err = lastWins(c.data, i)
			dups := duplicates(c.data, i)
			for j, d := range dups {
				if j == maxDuplicateWarnings {
					lim.warn(fmt.Sprintf("%s: document %d: ... and %d more keys that appear more than once", quote.Name(source), *doc, len(dups)-j))
					break
				}
				lim.warn(fmt.Sprintf("%s: document %d (line %d): key %q appears more than once in one mapping; the last one is used, as Argo CD does",
					quote.Name(source), *doc, c.line+d.line-1, shortKey(d.key)))
			}
		}
		if cerr := lim.count(*doc, 1); cerr != nil {
			return &Error{source, *doc, c.line, cerr.Error()}
		}
		if err != nil {
			return &Error{source, *doc, c.line, "malformed YAML: " + shiftLines(err.Error(), c.line)}
		}
		v, err := jsonValue(raw, 0, lim.MaxDepth)
		if err == errDepth {
			return &Error{source, *doc, c.line, fmt.Sprintf("nesting deeper than %d levels", lim.MaxDepth)}
		}
		if err != nil {
			return &Error{source, *doc, c.line, "malformed YAML: " + shiftLines(err.Error(), c.line)}
		}
		if v == nil && !first {
			*doc-- // an empty document after another one, as kubectl skips it
			lim.count(*doc, -1)
			continue
		}
		objs, err := fromValue(source, *doc, c.line, v)
		if err != nil {
			return err
		}
		for _, o := range objs {
			if err := fn(o); err != nil {
				return err
			}
		}
	}
}

func decodeJSONStream(source string, data []byte, lim Limits) ([]Object, error) {
	var out []Object
	dec := json.NewDecoder(bytes.NewReader(data))
	line, counted := 1, 0 // lines are counted once over the stream, not per document
	for doc := 1; ; doc++ {
		off := int(dec.InputOffset())
		for off < len(data) && (data[off] == ' ' || data[off] == '\t' || data[off] == '\r' || data[off] == '\n') {
			off++
		}
		line += bytes.Count(data[counted:off], []byte("\n"))
		counted = off
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, &Error{source, doc, line, "malformed JSON: " + err.Error()}
		}
		if cerr := lim.count(doc, 1); cerr != nil {
			return nil, &Error{source, doc, line, cerr.Error()}
		}
		objs, err := fromJSON(source, doc, line, raw, lim)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
}

func fromJSON(source string, doc, line int, j []byte, lim Limits) ([]Object, error) {
	if bytes.Equal(bytes.TrimSpace(j), []byte("null")) {
		return nil, nil
	}
	if lim.MaxDepth > 0 {
		if d := depth(j); d > lim.MaxDepth {
			return nil, &Error{source, doc, line, fmt.Sprintf("nesting deeper than %d levels", lim.MaxDepth)}
		}
	}
	var v any
	if err := utiljson.Unmarshal(j, &v); err != nil {
		return nil, &Error{source, doc, line, err.Error()}
	}
	return fromValue(source, doc, line, v)
}

func fromValue(source string, doc, line int, v any) ([]Object, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{source, doc, line, fmt.Sprintf("document is %s, not an object; every document must be a Kubernetes object with apiVersion and kind", typeName(v))}
	}
	return flatten(Object{Data: m, Source: source, Doc: doc, Line: line})
}

// flatten expands List kinds (v1 List, FooList with items) into their items.
func flatten(o Object) ([]Object, error) {
	kind, _ := o.Data["kind"].(string)
	av, _ := o.Data["apiVersion"].(string)
	items, isList := o.Data["items"].([]any)
	if strings.HasSuffix(kind, "List") && isList {
		var out []Object
		for i, it := range items {
			m, ok := it.(map[string]any)
			if !ok {
				return nil, &Error{o.Source, o.Doc, o.Line, fmt.Sprintf("%s item %d is %s, not an object", kind, i, typeName(it))}
			}
			sub, err := flatten(Object{Data: m, Source: o.Source, Doc: o.Doc, Line: o.Line})
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
		return out, nil
	}
	if av == "" || kind == "" {
		return nil, &Error{o.Source, o.Doc, o.Line, "object has no apiVersion or kind; every document must be a Kubernetes object"}
	}
	return []Object{o}, nil
}

// depth measures JSON nesting without building values, so hostile input is
// refused before it costs memory.
func depth(j []byte) int {
	d, max, inStr, esc := 0, 0, false, false
	for _, c := range j {
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			d++
			if d > max {
				max = d
			}
		case c == '}' || c == ']':
			d--
		}
	}
	return max
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, float64, json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}

// TypeName is the JSON type of v in words ("a string", "a list", ...).
func TypeName(v any) string { return typeName(v) }

// Encode writes objects as a YAML stream ("---" between documents) or, with
// format "json", as kubectl does: one object alone, several as one v1 List.
// Callers that must not print a partial stream pass a buffer.
func Encode(w io.Writer, objs []Object, format string) error {
	enc, err := NewEncoder(w, format)
	if err != nil {
		return err
	}
	for _, o := range objs {
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	return enc.Close()
}

// JSONStream is the format of generate's output: one compact JSON object
// per line, keys sorted, as encoding/json writes it. Argo CD reads a plugin's output as a YAML or JSON
// stream and never shows its text; it reads this as the same objects as
// the YAML stream, and writing it costs a fraction of writing YAML.
const JSONStream = "json-stream"

// Encoder writes objects one by one in the stream format. (A single
// yaml/v2 Encoder for the whole stream would save setting up an emitter per
// document, but it keeps every event of the stream in memory.)
type Encoder struct {
	w      io.Writer
	format string
	n      int
	first  *Object       // json: held until a second object makes the output a List
	stream *json.Encoder // JSONStream
}

// NewEncoder writes to w; Close must be called at the end.
func NewEncoder(w io.Writer, format string) (*Encoder, error) {
	e := &Encoder{w: w, format: format}
	switch format {
	case "json", "", "yaml":
	case JSONStream:
		// HTML characters stay escaped (\u003c): Argo CD passes the text of
		// JSON objects through, and writes YAML's the same way.
		e.stream = json.NewEncoder(w)
	default:
		return nil, fmt.Errorf("unknown output format %q (use yaml or json)", format)
	}
	return e, nil
}

const (
	listHead = "{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n"
	listTail = "\n  ],\n  \"kind\": \"List\",\n  \"metadata\": {\n    \"resourceVersion\": \"\"\n  }\n}\n"
)

// Encode writes one object.
func (e *Encoder) Encode(o Object) error {
	var err error
	switch {
	case e.stream != nil:
		err = e.stream.Encode(o.Data) // one Write per object, newline included
	case e.format != "json":
		var b []byte
		if b, err = marshalYAML(o.Data); err == nil && e.n > 0 {
			_, err = io.WriteString(e.w, "---\n")
		}
		if err == nil {
			_, err = e.w.Write(b)
		}
	case e.n == 0:
		e.first = &o
		_, err = json.Marshal(o.Data) // report encoding errors on this object
	case e.n == 1:
		if _, err = io.WriteString(e.w, listHead); err == nil {
			if err = e.item(*e.first); err != nil {
				o = *e.first
			} else if _, err = io.WriteString(e.w, ",\n"); err == nil {
				err = e.item(o)
			}
		}
		e.first = nil
	default:
		if _, err = io.WriteString(e.w, ",\n"); err == nil {
			err = e.item(o)
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %s: encoding: %w", o.Where(), o.ID(), err)
	}
	e.n++
	return nil
}

// item writes an object as an element of the List's items.
func (e *Encoder) item(o Object) error {
	b, err := json.MarshalIndent(o.Data, "    ", "  ")
	if err == nil {
		_, err = io.WriteString(e.w, "    ")
	}
	if err == nil {
		_, err = e.w.Write(b)
	}
	return err
}

// Close finishes the stream.
func (e *Encoder) Close() error {
	if e.format != "json" {
		return nil
	}
	if e.first != nil {
		b, err := json.MarshalIndent(e.first.Data, "", "  ")
		if err == nil {
			_, err = e.w.Write(append(b, '\n'))
		}
		return err
	}
	if e.n > 1 {
		_, err := io.WriteString(e.w, listTail)
		return err
	}
	return nil
}
