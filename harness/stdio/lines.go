package stdio

import (
	"bufio"
	"errors"
	"io"
)

// errLineTooLong: a stdout line is longer than MaxLineBytes.
var errLineTooLong = errors.New("stdout line too long")

// lineReader splits stdout into lines without ever holding more than max
// bytes of one line.
type lineReader struct {
	r    *bufio.Reader
	max  int
	long []byte // a line that spans several buffer fills
}

// readBufferSize is the stdout read buffer; longer lines are assembled in
// lineReader.long, up to MaxLineBytes.
const readBufferSize = 64 << 10

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, readBufferSize), max: max}
}

// next returns the next line without its newline and whether a newline ended
// it (the last line of the stream may lack one). The line is valid until the
// following call. At the end of the stream it returns io.EOF (or the read
// error); for a line longer than max, errLineTooLong, having read max+1 bytes
// of it at most.
func (lr *lineReader) next() (line []byte, newline bool, err error) {
	lr.long = lr.long[:0]
	for {
		frag, err := lr.r.ReadSlice('\n')
		content := frag
		if err == nil {
			content = frag[:len(frag)-1]
		}
		if len(lr.long)+len(content) > lr.max {
			return nil, false, errLineTooLong
		}
		switch {
		case err == nil && len(lr.long) == 0:
			return content, true, nil
		case err == nil:
			return append(lr.long, content...), true, nil
		case err == bufio.ErrBufferFull:
			lr.long = append(lr.long, content...)
		case len(lr.long)+len(content) > 0:
			// The stream ended inside a line: hand it over; the next call
			// reports the end.
			return append(lr.long, content...), false, nil
		default:
			return nil, false, err
		}
	}
}
