package mcpserver

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"sync"
)

// The binary fixtures, base64 as content blocks carry them (TL-14), made on
// first use.
var (
	fixturePNG = sync.OnceValue(func() string { return base64.StdEncoding.EncodeToString(onePixelPNG()) })
	fixtureWAV = sync.OnceValue(func() string { return base64.StdEncoding.EncodeToString(shortWAV()) })
)

// onePixelPNG is a 1×1 red PNG image.
func onePixelPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

// shortWAV is a WAV file of 8 silent samples: 8 kHz, mono, 8-bit PCM.
func shortWAV() []byte {
	const samples, rate = 8, 8000
	var b bytes.Buffer
	put := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	put(uint32(36 + samples))
	b.WriteString("WAVEfmt ")
	put(uint32(16))   // fmt chunk size
	put(uint16(1))    // PCM
	put(uint16(1))    // mono
	put(uint32(rate)) // sample rate
	put(uint32(rate)) // byte rate
	put(uint16(1))    // block align
	put(uint16(8))    // bits per sample
	b.WriteString("data")
	put(uint32(samples))
	b.Write(bytes.Repeat([]byte{128}, samples))
	return b.Bytes()
}

// content encodes one content block.
func content(block any) json.RawMessage {
	b, _ := json.Marshal(block)
	return b
}

func imageContent() json.RawMessage {
	return content(map[string]string{"type": "image", "data": fixturePNG(), "mimeType": "image/png"})
}

func audioContent() json.RawMessage {
	return content(map[string]string{"type": "audio", "data": fixtureWAV(), "mimeType": "audio/wav"})
}

// resourceContent is an embedded text resource block (TL-13).
func resourceContent(uri, mimeType, text string) json.RawMessage {
	return content(map[string]any{"type": "resource", "resource": textResource(uri, mimeType, text)})
}

// textResource is one text item of resource contents (RS-02).
func textResource(uri, mimeType, text string) map[string]string {
	return map[string]string{"uri": uri, "mimeType": mimeType, "text": text}
}
