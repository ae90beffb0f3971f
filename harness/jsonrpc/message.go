package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Kind says what a message is.
type Kind int

// The four kinds of JSON-RPC message.
const (
	KindRequest Kind = iota + 1
	KindNotification
	KindResult
	KindError
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResult:
		return "result"
	case KindError:
		return "error"
	}
	return "invalid"
}

// Message is one JSON-RPC 2.0 message. Exactly one shape is filled:
// a request has ID and Method, a notification only Method, a result ID and
// Result, an error Error (and an ID unless the request's id was unreadable).
type Message struct {
	ID     ID
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *Error
}

// Error is the error member of an error response.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message) }

// Kind classifies the message by its members.
func (m *Message) Kind() Kind {
	switch {
	case m.Method != "" && !m.ID.IsZero():
		return KindRequest
	case m.Method != "":
		return KindNotification
	case m.Error != nil:
		return KindError
	default:
		return KindResult
	}
}

// NewRequest builds a request; params may be nil, otherwise they must encode
// to a JSON object or array.
func NewRequest(id ID, method string, params any) (*Message, error) {
	p, err := marshalParams(params)
	return &Message{ID: id, Method: method, Params: p}, err
}

// NewNotification builds a notification; params may be nil, otherwise they
// must encode to a JSON object or array.
func NewNotification(method string, params any) (*Message, error) {
	p, err := marshalParams(params)
	return &Message{Method: method, Params: p}, err
}

// EncodeCall encodes a request when id is set, else a notification: the
// bytes a peer sends for method with params.
func EncodeCall(id ID, method string, params any) ([]byte, error) {
	p, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	return Encode(&Message{ID: id, Method: method, Params: p})
}

// NewResult builds a success response.
func NewResult(id ID, result any) (*Message, error) {
	r, err := json.Marshal(result)
	return &Message{ID: id, Result: r}, err
}

// NewError builds an error response.
func NewError(id ID, code int64, message string) *Message {
	return &Message{ID: id, Error: &Error{Code: code, Message: message}}
}

// marshalParams encodes params the way Decode accepts them: nil, or a value
// that encodes to JSON null (a nil map, slice or pointer), means no params;
// anything else must encode to an object or an array.
func marshalParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	switch p[0] {
	case 'n':
		return nil, nil
	case '{', '[':
		return p, nil
	}
	return nil, fmt.Errorf("%w: params must encode to a JSON object or array, got %.40s; pass a struct, map or slice, or nil for none", ErrInvalid, p)
}

type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *ID             `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// MarshalJSON writes the message as one compact JSON object with
// "jsonrpc":"2.0". An error response whose id is unknown carries "id":null.
func (m *Message) MarshalJSON() ([]byte, error) {
	w := wireMessage{JSONRPC: "2.0", Method: m.Method, Params: m.Params, Error: m.Error}
	if !m.ID.IsZero() || m.Error != nil {
		id := m.ID
		w.ID = &id
	}
	if m.Method == "" && m.Error == nil {
		w.Result = m.Result
		if len(w.Result) == 0 {
			w.Result = json.RawMessage("{}")
		}
	}
	return json.Marshal(w)
}

// Encode returns the message as a single line of JSON without the newline.
func Encode(m *Message) ([]byte, error) { return json.Marshal(m) }

// ErrInvalid wraps every strict-decoding failure.
var ErrInvalid = errors.New("invalid JSON-RPC message")

// Decode parses one JSON-RPC 2.0 message strictly: an object with "jsonrpc":"2.0";
// ids that are integers or strings (null only on an error response); a method
// that is a string; a response with exactly one of result and error; an error
// with an integer code and a string message; params, when present, an object or
// an array. The message keeps no reference to b, which the caller may reuse.
func Decode(b []byte) (*Message, error) {
	b = trimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil, fmt.Errorf("%w: not a JSON object", ErrInvalid)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	var version string
	if raw, ok := fields["jsonrpc"]; !ok || json.Unmarshal(raw, &version) != nil || version != "2.0" {
		return nil, fmt.Errorf(`%w: "jsonrpc" must be the string "2.0"`, ErrInvalid)
	}
	m := &Message{}
	rawID, hasID := fields["id"]
	if hasID {
		id, err := parseID(rawID)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		m.ID = id
	}
	if raw, ok := fields["method"]; ok {
		if err := json.Unmarshal(raw, &m.Method); err != nil || m.Method == "" || raw[0] != '"' {
			return nil, fmt.Errorf("%w: \"method\" must be a non-empty string", ErrInvalid)
		}
		if _, r := fields["result"]; r {
			return nil, fmt.Errorf("%w: a request carries no \"result\"", ErrInvalid)
		}
		if _, e := fields["error"]; e {
			return nil, fmt.Errorf("%w: a request carries no \"error\"", ErrInvalid)
		}
		if hasID && m.ID.IsZero() {
			return nil, fmt.Errorf("%w: a request id is never null", ErrInvalid)
		}
		if raw, ok := fields["params"]; ok {
			if c := firstByte(raw); c != '{' && c != '[' {
				return nil, fmt.Errorf("%w: \"params\" must be an object or an array", ErrInvalid)
			}
			m.Params = raw
		}
		return m, nil
	}
	result, hasResult := fields["result"]
	rawErr, hasErr := fields["error"]
	switch {
	case hasResult == hasErr:
		return nil, fmt.Errorf("%w: a response carries exactly one of \"result\" and \"error\"", ErrInvalid)
	case hasResult:
		if !hasID || m.ID.IsZero() {
			return nil, fmt.Errorf("%w: a result needs the id of its request", ErrInvalid)
		}
		m.Result = result
	default:
		e, err := decodeError(rawErr)
		if err != nil {
			return nil, err
		}
		m.Error = e
	}
	return m, nil
}

func decodeError(raw json.RawMessage) (*Error, error) {
	var parts map[string]json.RawMessage
	if firstByte(raw) != '{' || json.Unmarshal(raw, &parts) != nil {
		return nil, fmt.Errorf("%w: \"error\" must be an object", ErrInvalid)
	}
	e := &Error{}
	code, ok := parts["code"]
	if !ok || !isIntegerLiteral(trimSpace(code)) || json.Unmarshal(code, &e.Code) != nil {
		return nil, fmt.Errorf("%w: error \"code\" must be an integer", ErrInvalid)
	}
	msg, ok := parts["message"]
	if !ok || firstByte(msg) != '"' || json.Unmarshal(msg, &e.Message) != nil {
		return nil, fmt.Errorf("%w: error \"message\" must be a string", ErrInvalid)
	}
	e.Data = parts["data"]
	return e, nil
}

func firstByte(b []byte) byte {
	b = trimSpace(b)
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// DecodeAny reads a body that holds one message or a batch of them, as an
// HTTP response may; it returns nothing for anything else.
func DecodeAny(b []byte) []*Message {
	if firstByte(b) == '[' {
		ms, _ := DecodeBatch(b)
		return ms
	}
	if m, err := Decode(b); err == nil {
		return []*Message{m}
	}
	return nil
}

// DecodeBatch parses a JSON array of messages. Each element is decoded
// strictly; an empty array is invalid. Like Decode, it keeps no reference
// to b.
func DecodeBatch(b []byte) ([]*Message, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(b, &elems); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if len(elems) == 0 {
		return nil, fmt.Errorf("%w: empty batch", ErrInvalid)
	}
	out := make([]*Message, 0, len(elems))
	for i, e := range elems {
		m, err := Decode(e)
		if err != nil {
			return nil, fmt.Errorf("batch element %d: %w", i, err)
		}
		out = append(out, m)
	}
	return out, nil
}
