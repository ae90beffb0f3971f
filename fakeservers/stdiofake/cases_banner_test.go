package stdiofake

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// wantTextLine checks that line is skippable text holding marker.
func wantTextLine(t *testing.T, line, marker string) {
	t.Helper()
	if c := jsonrpc.ClassifyLine([]byte(line)); c != jsonrpc.ClassText {
		t.Errorf("line %q classifies as %s; want text", line, c)
	}
	if !strings.Contains(line, marker) {
		t.Errorf("line %q lacks the marker %q", line, marker)
	}
}

func TestBannerBeforeInit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "banner-before-init", Lines: 7, Marker: "M1"})
		for range 7 {
			wantTextLine(t, f.nextLine(), "M1")
		}
		f.initialize()
	})
}

func TestBannerLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "banner-lines", Lines: 5, Marker: "M2"})
		f.initialize()
		f.callTool(jsonrpc.IntID(1), "echo")
		for range 5 {
			wantTextLine(t, f.nextLine(), "M2")
		}
		f.wantCallText(jsonrpc.IntID(1), "ok echo")
	})
}

func TestBannerBytesExact(t *testing.T) {
	for _, tc := range []struct {
		total    int64
		maxLines int
	}{
		{0, 0}, {1, 0}, {2, 0}, {47, 0}, {99, 0}, {100, 0}, {101, 0}, {199, 0}, {200, 0}, {201, 0}, {1000, 0}, {4097, 0},
		{1000, 20}, {4097, 3}, {4097, 1}, {7, 3}, {300, 2},
	} {
		t.Run(fmt.Sprintf("%d bytes, at most %d lines", tc.total, tc.maxLines), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := startFake(t, Options{Case: "banner-bytes", Bytes: tc.total, Lines: tc.maxLines, Marker: "BYTES"})
				f.initialize()
				f.callTool(jsonrpc.IntID(1), "echo")
				var got int64
				lines := 0
				maxLine := int64(maxBannerLineBytes)
				if tc.maxLines > 0 {
					maxLine = max(maxLine, (tc.total+int64(tc.maxLines)-1)/int64(tc.maxLines))
				}
				for {
					l := f.nextLine()
					c := jsonrpc.ClassifyLine([]byte(l))
					if c == jsonrpc.ClassMessage {
						if m, err := jsonrpc.Decode([]byte(l)); err != nil || m.ID.Key() != "1" {
							t.Fatalf("after the banner: %q; want the result for id 1", l)
						}
						break
					}
					if c != jsonrpc.ClassText {
						t.Fatalf("line %q classifies as %s; want text", l, c)
					}
					if int64(len(l)+1) > maxLine {
						t.Errorf("line of %d bytes; want at most %d", len(l)+1, maxLine)
					}
					got += int64(len(l)) + 1
					lines++
				}
				if got != tc.total {
					t.Errorf("wrote %d banner bytes (newlines included); want %d", got, tc.total)
				}
				if tc.maxLines > 0 && lines > tc.maxLines {
					t.Errorf("wrote %d lines; want at most %d", lines, tc.maxLines)
				}
			})
		})
	}
}

func TestBannerBetween(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "banner-between", Marker: "BTW"})
		wantBanner := func() {
			t.Helper()
			for range defaultBetweenLines {
				wantTextLine(t, f.nextLine(), "BTW")
			}
		}
		f.request(1, "initialize", map[string]any{"protocolVersion": "2025-11-25"})
		wantBanner()
		f.wantResult(jsonrpc.IntID(1))
		wantBanner()
		f.request(2, "tools/list", nil)
		wantBanner()
		var list struct {
			Tools []fakeservers.Tool `json:"tools"`
		}
		if err := json.Unmarshal(f.wantResult(jsonrpc.IntID(2)), &list); err != nil {
			t.Fatal(err)
		}
		wantBanner()
		if len(list.Tools) != defaultBetweenTools {
			t.Fatalf("offers %d tools; want %d", len(list.Tools), defaultBetweenTools)
		}
		for i, tl := range list.Tools {
			name := fmt.Sprintf("t%d", i+1)
			if tl.Name != name {
				t.Errorf("tool %d is %q; want %q", i, tl.Name, name)
			}
			f.callTool(jsonrpc.IntID(int64(10+i)), name)
			wantBanner()
			f.wantCallText(jsonrpc.IntID(int64(10+i)), "ok "+name)
			wantBanner()
		}
	})
}

// TestBannerShapesAreText: every shape a banner line starts with (a level
// in brackets, timestamps, an ANSI escape, a number, a quote, a word) keeps
// it one text line within maxBannerLineBytes, even with the longest marker,
// and so does every size banner-bytes cuts a line to; the first line is no
// word.
func TestBannerShapesAreText(t *testing.T) {
	s := &server{o: Options{Marker: strings.Repeat("M", maxTextMarkerBytes)}}
	s.banner.Store(9_999_999 - 2*int64(len(bannerShapes))) // the last line is number 9999999, the longest the marker leaves room for
	starts := map[byte]bool{}
	for range 2 * len(bannerShapes) {
		line := s.bannerText()
		starts[line[0]] = true
		if c := jsonrpc.ClassifyLine([]byte(line)); c != jsonrpc.ClassText || len(line)+1 > maxBannerLineBytes {
			t.Errorf("banner line %q: class %v, %d bytes with its newline", line, c, len(line)+1)
		}
	}
	if len(starts) < 5 {
		t.Errorf("banner lines start with %d different bytes; want a letter, a digit, a quote, a bracket and an escape", len(starts))
	}
	if first := (&server{}).bannerText(); first[0] != '[' {
		t.Errorf("a banner opens with %q; want a bracketed level first", first)
	}
	for size := int64(1); size <= 2*maxBannerLineBytes; size++ {
		var out strings.Builder
		(&stream{name: "stdout", w: &out}).group(func(w *lineWriter) { w.bannerBytes(&server{}, size, 0) })
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if jsonrpc.ClassifyLine([]byte(line)) != jsonrpc.ClassText {
				t.Errorf("banner-bytes %d wrote %q, which is not text", size, line)
			}
		}
	}
}
