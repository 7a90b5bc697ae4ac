package warn

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"time"
)

// Pipe is a pipe whose lines become logged warnings in to, at most 4 KiB
// of each (kustomize writes its notes on deprecated fields to os.Stderr
// itself, one per field of every kustomization, and kyaml its errors):
// the worker points os.Stderr at w as it starts. sync waits until every
// line written so far is among the warnings.
func Pipe(to *List) (w *os.File, sync func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	token := make([]byte, 16)
	rand.Read(token)
	mark := []byte("sync " + hex.EncodeToString(token) + "\n")
	synced := make(chan struct{}, 1)
	go readLogged(r, to, mark, synced)
	return w, func() {
		if _, err := w.Write(mark); err != nil {
			return
		}
		select {
		case <-synced:
		case <-time.After(2 * time.Second):
		}
	}, nil
}

// readLogged hands every line of r to to, at most 4 KiB of each, until
// it ends; a line equal to mark is not logged but signalled.
func readLogged(r io.Reader, to *List, mark []byte, synced chan<- struct{}) {
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
