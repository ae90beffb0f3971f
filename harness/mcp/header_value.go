package mcp

// EncodeHeaderValue is v as a 2026-07-28 header carries it: as is when it is
// plain printable ASCII without edge spaces that does not look encoded,
// otherwise "=?base64?<base64 of its UTF-8>?=" (HT-78).
func EncodeHeaderValue(v string) string { return encodeHeaderValue(v) }

// DecodeHeaderValue undoes EncodeHeaderValue; a value without the markers is
// returned as it is.
func DecodeHeaderValue(v string) (string, error) { return decodeHeaderValue(v) }
