package stdio

import (
	"strings"
	"testing"
)

func TestTailKeepsTheLastBytes(t *testing.T) {
	tests := []struct {
		max    int
		writes []string
		want   string
	}{
		{5, nil, ""},
		{5, []string{"ab"}, "ab"},
		{5, []string{"ab", "cde"}, "abcde"},
		{5, []string{"ab", "cdefg"}, "cdefg"},
		{5, []string{"abcd", "ef", "g"}, "cdefg"},
		{5, []string{"0123456789abc"}, "89abc"},
		{5, []string{"xyz", "0123456789abc"}, "89abc"},
		{0, []string{"anything"}, ""},
		{1, []string{"ab", "c"}, "c"},
	}
	for _, tt := range tests {
		tl := newTail(tt.max)
		total := 0
		for _, w := range tt.writes {
			if n, err := tl.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
			total += len(w)
		}
		if got := string(tl.Bytes()); got != tt.want || tl.Total() != int64(total) {
			t.Errorf("max %d, writes %q: kept %q (total %d), want %q (total %d)", tt.max, tt.writes, got, tl.Total(), tt.want, total)
		}
	}
}

func TestTailMemoryIsFixed(t *testing.T) {
	tl := newTail(1024)
	chunk := []byte(strings.Repeat("z", 4096))
	for range 1000 {
		_, _ = tl.Write(chunk)
	}
	if cap(tl.ring) != 1024 {
		t.Fatalf("ring capacity %d, want 1024", cap(tl.ring))
	}
}
