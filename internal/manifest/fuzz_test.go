package manifest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecode: any input either fails cleanly or round-trips: decoding the
// encoded objects gives the same objects, and encoding is stable.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: '1'}\n",
		"---\n# c\n---\napiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: A}]\n",
		`{"apiVersion":"v1","kind":"A","x":[1,2.5,"s",null,true]}`,
		"a: &a [1]\nb: [*a, *a]\napiVersion: v1\nkind: A\n",
		"apiVersion: v1\nkind: A\nx: 1e3\ny: 0x1F\nz: yes\nw: ~\n",
		"- 1\n- 2\n",
		"a: 1\n--- # c\nb: 2\n...\n---\n",
		"apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := Decode("fuzz", data)
		// Reading from a reader, one document at a time, gives the same.
		var streamed []Object
		serr := EachReader("fuzz", bytes.NewReader(data), 1<<30, DefaultLimits, func(o Object) error {
			streamed = append(streamed, o)
			return nil
		})
		if (err == nil) != (serr == nil) || (err != nil && err.Error() != serr.Error()) {
			t.Fatalf("Decode and EachReader disagree: %v / %v", err, serr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(objs, streamed) {
			t.Fatalf("Decode and EachReader give other objects")
		}
		var a bytes.Buffer
		if err := Encode(&a, objs, "yaml"); err != nil {
			return // e.g. NaN has no JSON form; an error, not a crash
		}
		again, err := Decode("again", a.Bytes())
		if err != nil {
			t.Fatalf("re-decoding our own output failed: %v\n%s", err, a.String())
		}
		if len(again) != len(objs) {
			t.Fatalf("objects in %d, out %d", len(objs), len(again))
		}
		for i := range objs {
			// Compare as JSON: an integral float such as JSON's 0.0 is written
			// as 0 and read back as an integer, exactly as with kubectl's
			// libraries; the JSON value is what must not change.
			a, _ := json.Marshal(objs[i].Data)
			b, _ := json.Marshal(again[i].Data)
			if !bytes.Equal(a, b) {
				t.Fatalf("round trip changed object %d:\n%s\n%s", i, a, b)
			}
		}
		var b bytes.Buffer
		if err := Encode(&b, again, "yaml"); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("encoding is not stable: %v", err)
		}
	})
}
