package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"time"

	"github.com/cmp-defaults/cmp-defaults/internal/warn"
)

// captureStderr points os.Stderr at a pipe whose lines become logged
// warnings (kustomize writes its notes on deprecated fields there itself,
// one per field of every kustomization, and kyaml its errors), and
// returns the real stderr for the command's own messages, and sync, which
// waits until every line written so far is among the warnings. The Go
// runtime writes a crash to descriptor 2, not through os.Stderr, so a
// crash still reaches the supervisor. It is called once, as the worker
// starts; when no pipe can be made, os.Stderr stays as it is.
func captureStderr() (stderr *os.File, sync func()) {
	stderr, sync = os.Stderr, func() {}
	r, w, err := os.Pipe()
	if err != nil {
		return stderr, sync
	}
	token := make([]byte, 16)
	rand.Read(token)
	mark := []byte("sync " + hex.EncodeToString(token) + "\n")
	synced := make(chan struct{}, 1)
	go readLogged(r, &logged, mark, synced)
	os.Stderr = w
	return stderr, func() {
		if _, err := w.Write(mark); err != nil {
			return
		}
		select {
		case <-synced:
		case <-time.After(2 * time.Second):
		}
	}
}

// readLogged hands every line of r to to, at most 4 KiB of each, until
// it ends; a line equal to mark is not logged but signalled.
func readLogged(r io.Reader, to *warn.List, mark []byte, synced chan<- struct{}) {
	br := bufio.NewReaderSize(r, 4<<10)
	for {
		line, err := br.ReadSlice('\n')
		full := err == bufio.ErrBufferFull
		switch {
		case bytes.Equal(line, mark):
			select {
			case synced <- struct{}{}:
			default:
			}
		case len(line) > 0:
			to.Write(line)
		}
		for full { // the rest of a long line is left out
			_, err = br.ReadSlice('\n')
			full = err == bufio.ErrBufferFull
		}
		if err != nil {
			return
		}
	}
}
