package server

import "encoding/json"

// listsURLElicitations reports whether a -32042 error's data lists the
// URL-mode elicitations needed, each with an elicitationId (JR-26).
func listsURLElicitations(data json.RawMessage) bool {
	var d struct {
		Elicitations []struct {
			Mode          string `json:"mode"`
			ElicitationID string `json:"elicitationId"`
		} `json:"elicitations"`
	}
	if json.Unmarshal(data, &d) != nil || len(d.Elicitations) == 0 {
		return false
	}
	for _, e := range d.Elicitations {
		if e.Mode != "url" || e.ElicitationID == "" {
			return false
		}
	}
	return true
}
