package main

import (
	"bytes"
	"context"
	"testing"
)

// FuzzFillStream: arbitrary bytes on fill's stdin, as the CLI runs them.
// Invariants: a failed run prints nothing on stdout (an empty or short
// stream under prune: true deletes workloads), and filling the output of a
// successful run again gives the same bytes.
func FuzzFillStream(f *testing.F) {
	for _, s := range []string{
		"apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: a}\nspec: {data: [{secretKey: k, remoteRef: {key: k}}]}\n",
		"apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: c}\nspec: {secretName: s, issuerRef: {name: x}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\n",
		`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"external-secrets.io/v1","kind":"SecretStore","metadata":{"name":"s"},"spec":{"provider":{"aws":{"service":"SecretsManager"}}}}]}`,
		"apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nspec: {data: 5}\n",
		"kind: [",
	} {
		f.Add([]byte(s))
	}
	args := []string{"fill", "--operator", "external-secrets@2.5.0,cert-manager@1.19.0", "-"}
	f.Fuzz(func(t *testing.T, in []byte) {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, bytes.NewReader(in), &out, &errb); code != 0 {
			if out.Len() != 0 {
				t.Fatalf("exit %d with %d bytes on stdout; stderr: %s", code, out.Len(), errb.String())
			}
			return
		}
		var again, errb2 bytes.Buffer
		if code := run(context.Background(), args, bytes.NewReader(out.Bytes()), &again, &errb2); code != 0 {
			t.Fatalf("filling the output again: exit %d: %s\noutput was:\n%s", code, errb2.String(), out.String())
		}
		if !bytes.Equal(again.Bytes(), out.Bytes()) {
			t.Fatalf("not idempotent:\nfirst:\n%s\nsecond:\n%s", out.String(), again.String())
		}
	})
}
