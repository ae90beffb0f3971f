package jsonrpc

import (
	"bufio"
	"bytes"
	"errors"
)

// ReadLine reads one line of a stdio stream without its newline. A line
// longer than max bytes is read to its end but not kept: it comes back
// empty, tooLong, with size its length, so that whatever a peer writes,
// what is held stays under max. The last line may lack a newline; after it
// comes the end of the stream (the error of the next call).
func ReadLine(r *bufio.Reader, max int) (line []byte, size int64, tooLong bool, err error) {
	var buf []byte
	for {
		frag, err := r.ReadSlice('\n')
		content := bytes.TrimSuffix(frag, []byte("\n"))
		size += int64(len(content))
		if !tooLong && len(buf)+len(content) > max {
			tooLong, buf = true, nil
		}
		if !tooLong {
			buf = append(buf, content...)
		}
		switch {
		case err == nil:
			return buf, size, tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
		case len(frag) > 0 || len(buf) > 0 || tooLong:
			return buf, size, tooLong, nil // the next read reports the end
		default:
			return nil, 0, false, err
		}
	}
}
