package acctadmin

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestEnvelopeSuccessForms(t *testing.T) {
	cases := map[string]bool{
		`{"success":true,"result":[]}`:    true,
		`{"success":"true","result":[]}`:  true,
		`{"success":false,"result":[]}`:   false,
		`{"success":"false","result":[]}`: false,
	}
	for in, want := range cases {
		var out []Callback
		got, err := decodeEnvelope("GET /callbacks", []byte(in), &out)
		if err != nil || got != want {
			t.Errorf("decodeEnvelope(%s) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{`{"success":"yes","result":[]}`, `{"success":1,"result":[]}`, `{"success":null,"result":[]}`} {
		var out []Callback
		_, err := decodeEnvelope("GET /callbacks", []byte(in), &out)
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Errorf("decodeEnvelope(%s): got %v, want a *DecodeError", in, err)
		}
	}
}

func TestDecodeErrorsNameEndpointAndPath(t *testing.T) {
	const ep = "GET /callbacks"
	good := `{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11","created_at":"2024-05-01 10:00:00 -0600","url":"https://x.test/cb"}`
	cases := []struct {
		name, body, path, msg string
	}{
		{"not json", `<html>oops</html>`, "", "not valid JSON"},
		{"truncated", `{"success":true,"result":[` + good, "", "not valid JSON"},
		{"array at top", `[1,2]`, "", "not the API's envelope"},
		{"no success", `{"result":[]}`, "", "not the API's envelope"},
		{"string at top", `"hello"`, "", "not the API's envelope"},
		{"result of wrong kind", `{"success":true,"result":{"a":1}}`, "result", "want a JSON array"},
		{"bad time in second item", `{"success":true,"result":[` + good + `,{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c12","created_at":"soon"}]}`, "result[1].created_at", "unrecognised time"},
		{"bad uuid", `{"success":true,"result":[{"id":"not-a-uuid"}]}`, "result[0].id", "invalid UUID"},
		{"number for string", `{"success":true,"result":[{"url":42}]}`, "result[0].url", "cannot read JSON number as string"},
		{"bad timestamp", `{"success":true,"timestamp":7,"result":[]}`, "timestamp", "want a time string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out []Callback
			_, err := decodeEnvelope(ep, []byte(tc.body), &out)
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, want a *DecodeError", err)
			}
			if de.Endpoint != ep || de.Path != tc.path {
				t.Fatalf("endpoint %q path %q, want %q %q", de.Endpoint, de.Path, ep, tc.path)
			}
			if !strings.Contains(de.Error(), tc.msg) || !strings.Contains(de.Error(), ep) {
				t.Fatalf("message %q does not say %q", de.Error(), tc.msg)
			}
		})
	}
}

func TestDecodePathInsideRecordsWithOwnDecoder(t *testing.T) {
	// Invoice keeps its raw record through its own UnmarshalJSON; the path
	// must still reach the bad field inside it.
	body := `{"success":true,"result":[{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11","items":[{"price":"1.00"},{"price":"free"}]}]}`
	var out []Invoice
	_, err := decodeEnvelope("GET /invoices", []byte(body), &out)
	var de *DecodeError
	if !errors.As(err, &de) || de.Path != "result[0].items[1].price" {
		t.Fatalf("got %v, want the path result[0].items[1].price", err)
	}
}

func TestDecodeKeepsUnknownFieldsOutAndNullsEmpty(t *testing.T) {
	body := `{"success":"true","timestamp":"2024-05-01 10:00:00 -0600","extra":{"a":[1,2]},"result":[
	 {"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11","created_at":"2024-05-01T10:00:00.123-06:00","url":"https://x.test/cb","_links":{"self":"/callbacks/1"}}]}`
	var out []Callback
	okFlag, err := decodeEnvelope("GET /callbacks", []byte(body), &out)
	if err != nil || !okFlag {
		t.Fatalf("decode: %v %v", okFlag, err)
	}
	want := Callback{
		ID:        uuid.MustParse("6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11"),
		CreatedAt: Time{time.Date(2024, 5, 1, 16, 0, 0, 123e6, time.UTC)},
		URL:       "https://x.test/cb",
	}
	if len(out) != 1 || out[0].ID != want.ID || !out[0].CreatedAt.Equal(want.CreatedAt.Time) || out[0].URL != want.URL {
		t.Fatalf("got %+v", out)
	}
	var none []Callback
	if _, err := decodeEnvelope("GET /callbacks", []byte(`{"success":true,"result":null}`), &none); err != nil || none != nil {
		t.Fatalf("null result: %v %v", none, err)
	}
}
