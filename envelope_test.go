package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
		var out wireList[wireOf[Callback], Callback]
		got, err := decodeEnvelope("GET /callbacks", []byte(in), &out)
		if err != nil || got != want {
			t.Errorf("decodeEnvelope(%s) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{`{"success":"yes","result":[]}`, `{"success":1,"result":[]}`, `{"success":null,"result":[]}`} {
		var out wireList[wireOf[Callback], Callback]
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
		{"bad success flag", `{"success":"yes","timestamp":7,"result":[]}`, "success", "want a boolean"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out wireList[wireOf[Callback], Callback]
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

// A record's time.Time fields are read through its wire type in every
// shape Time accepts, and a bad one is named by its path, in records with
// a wire type and in records that keep their raw JSON through their own
// decoder alike.
func TestDecodeTimesInsideRecords(t *testing.T) {
	var services wireList[wireOf[Service], Service]
	body := `{"success":true,"result":[{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11","created_at":"2024-05-01 10:00:00 -0600","updated_at":"2024-05-02T10:00:00Z"}]}`
	if _, err := decodeEnvelope("GET /services", []byte(body), &services); err != nil {
		t.Fatal(err)
	}
	s := services.records[0]
	created, updated := time.Date(2024, 5, 1, 16, 0, 0, 0, time.UTC), time.Date(2024, 5, 2, 10, 0, 0, 0, time.UTC)
	if !s.CreatedAt.Equal(created) || !s.UpdatedAt.Equal(updated) || !s.CreatedAt.Before(s.UpdatedAt) || s.UpdatedAt.Sub(s.CreatedAt) != 18*time.Hour {
		t.Fatalf("times = %v, %v", s.CreatedAt, s.UpdatedAt)
	}
	if _, off := s.CreatedAt.Zone(); off != -6*3600 {
		t.Fatalf("offset %d, want the API's -0600 kept", off)
	}

	cases := []struct {
		name, endpoint, body, path string
		out                        func() any
	}{
		{"service", "GET /services", `{"success":true,"result":[{"created_at":"2024-05-01 10:00:00 -0600"},{"updated_at":"later"}]}`, "result[1].updated_at", func() any { return new(wireList[wireOf[Service], Service]) }},
		{"document", "GET /documents/x", `{"success":true,"result":{"state":"Utah","created_at":"2024-02-30 10:00:00 -0600"}}`, "result.created_at", func() any { return new(wireOf[Document]) }},
		{"compliance event", "GET /compliance-events", `{"success":true,"result":[{"due_date":"2024-05-01","created_at":17}]}`, "result[0].created_at", func() any { return new(wireList[wireOf[ComplianceEvent], ComplianceEvent]) }},
		{"website", "GET /websites", `{"success":true,"result":{"updated_at":"2024-05-01"}}`, "result.updated_at", func() any { return new(wireOf[Website]) }},
		{"company with raw", "GET /companies", `{"success":true,"result":[{"name":"A","created_at":"2024-05-01 10:00:00 -0600"},{"name":"B","created_at":"2024-05-01 10:00:00 -0600","updated_at":"never"}]}`, "result[1].updated_at", func() any { return new([]Company) }},
		{"invoice with raw", "GET /invoices", `{"success":true,"result":[{"company":"A","created_at":"2024-05-01 10:00:00 -0600","updated_at":"2024-05-01 25:00:00 -0600"}]}`, "result[0].updated_at", func() any { return new([]Invoice) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			switch out := tc.out().(type) {
			case *wireList[wireOf[Service], Service]:
				_, err = decodeEnvelope(tc.endpoint, []byte(tc.body), out)
			case *wireOf[Document]:
				_, err = decodeEnvelope(tc.endpoint, []byte(tc.body), out)
			case *wireList[wireOf[ComplianceEvent], ComplianceEvent]:
				_, err = decodeEnvelope(tc.endpoint, []byte(tc.body), out)
			case *wireOf[Website]:
				_, err = decodeEnvelope(tc.endpoint, []byte(tc.body), out)
			case *[]Company:
				_, err = decodeEnvelope(tc.endpoint, []byte(tc.body), out)
			case *[]Invoice:
				_, err = decodeEnvelope(tc.endpoint, []byte(tc.body), out)
			}
			var de *DecodeError
			if !errors.As(err, &de) || de.Endpoint != tc.endpoint || de.Path != tc.path {
				t.Fatalf("got %v, want a *DecodeError for %s at %s", err, tc.endpoint, tc.path)
			}
			if !strings.Contains(de.Error(), "time") {
				t.Fatalf("message %q does not say a time is at fault", de.Error())
			}
		})
	}
}

func TestDecodeKeepsUnknownFieldsOutAndNullsEmpty(t *testing.T) {
	body := `{"success":"true","timestamp":"2024-05-01 10:00:00 -0600","extra":{"a":[1,2]},"result":[
	 {"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11","created_at":"2024-05-01T10:00:00.123-06:00","url":"https://x.test/cb","_links":{"self":"/callbacks/1"}}]}`
	var out wireList[wireOf[Callback], Callback]
	okFlag, err := decodeEnvelope("GET /callbacks", []byte(body), &out)
	if err != nil || !okFlag {
		t.Fatalf("decode: %v %v", okFlag, err)
	}
	want := Callback{
		ID:        uuid.MustParse("6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11"),
		CreatedAt: time.Date(2024, 5, 1, 16, 0, 0, 123e6, time.UTC),
		URL:       "https://x.test/cb",
	}
	if len(out.records) != 1 {
		t.Fatalf("got %+v", out)
	}
	if got := out.records[0]; got.ID != want.ID || !got.CreatedAt.Equal(want.CreatedAt) || got.URL != want.URL {
		t.Fatalf("got %+v", got)
	}
	var none []Callback
	if _, err := decodeEnvelope("GET /callbacks", []byte(`{"success":true,"result":null}`), &none); err != nil || none != nil {
		t.Fatalf("null result: %v %v", none, err)
	}
}

// A list is decoded into a pooled slice of its wire form: a later answer
// must not show anything of an earlier one, whichever goroutine decodes
// it, and null, [] and a missing result keep their meaning.
func TestWireListKeepsNothingBetweenAnswers(t *testing.T) {
	full := `{"success":true,"result":[` +
		`{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c11","created_at":"2024-05-01 10:00:00 -0600","status":"active","company":"Acme","jurisdiction":"Utah"},` +
		`{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c12","updated_at":"2024-05-02T10:00:00Z","status":"cancelled","company":"Bluebird","type":"registered-agent"}]}`
	bare := `{"success":true,"result":[{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c13"},{},{"status":"active"}]}`
	decode := func(body string) ([]Service, error) {
		var list wireList[wireOf[Service], Service]
		_, err := decodeEnvelope("GET /services", []byte(body), &list)
		return list.records, err
	}
	const workers, rounds = 8, 200
	errc := make(chan error, workers)
	for w := range workers {
		go func() {
			for i := range rounds {
				body := full
				if (w+i)%2 == 1 {
					body = bare
				}
				got, err := decode(body)
				if err != nil {
					errc <- err
					return
				}
				if body == bare {
					if len(got) != 3 || got[0].Company != "" || !got[0].CreatedAt.IsZero() || got[1] != (Service{}) || got[2].Status != ServiceActive || got[2].Jurisdiction != "" {
						errc <- fmt.Errorf("bare answer decoded as %+v", got)
						return
					}
				} else if len(got) != 2 || got[0].Company != "Acme" || got[1].Type != "registered-agent" || !got[1].CreatedAt.IsZero() || !got[0].UpdatedAt.IsZero() {
					errc <- fmt.Errorf("full answer decoded as %+v", got)
					return
				}
			}
			errc <- nil
		}()
	}
	for range workers {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}

	for body, want := range map[string]string{
		`{"success":true,"result":null}`: "nil",
		`{"success":true,"result":[]}`:   "empty",
		`{"success":true}`:               "empty",
	} {
		got, err := decode(body)
		if err != nil || (want == "nil") != (got == nil) || len(got) != 0 {
			t.Errorf("%s: %#v, %v; want %s", body, got, err, want)
		}
	}
	// An answer far longer than a page decodes whole, and the one after it
	// shows nothing of it.
	long := `{"success":true,"result":[` + strings.Repeat(`{"company":"Zed"},`, 2*maxPooledWires) + `{"company":"Zed"}]}`
	if got, err := decode(long); err != nil || len(got) != 2*maxPooledWires+1 || got[len(got)-1].Company != "Zed" {
		t.Fatalf("long answer: %d records, %v", len(got), err)
	}
	if got, err := decode(bare); err != nil || len(got) != 3 || got[1] != (Service{}) {
		t.Fatalf("after a long answer: %+v, %v", got, err)
	}
	// A bad item is still named by its path.
	_, err := decode(`{"success":true,"result":[{"id":"6f1c2c1e-2b59-4d4e-9b55-7d3f9a0e8c13"},{"created_at":"soon"}]}`)
	var de *DecodeError
	if !errors.As(err, &de) || de.Path != "result[1].created_at" {
		t.Fatalf("got %v, want a *DecodeError at result[1].created_at", err)
	}
}

// Envelopes built to confuse: each is refused or read as JSON reads it,
// never half-believed.
func TestReviewHostileEnvelopes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		wantErr    bool
		wantLen    int
	}{
		{"duplicate success, last false", `{"success":true,"success":false,"result":[]}`, true, 0},
		{"duplicate result", `{"success":true,"result":[{"id":"5f0c2a9e-7d41-4b8e-9c3a-1e2d3c4b5a69"}],"result":[]}`, false, 0},
		{"byte order mark", "\ufeff" + `{"success":true,"result":[]}`, true, 0},
		{"huge number in result", `{"success":true,"result":[{"id":"5f0c2a9e-7d41-4b8e-9c3a-1e2d3c4b5a69","created_at":1e999999}]}`, true, 0},
		{"success as number", `{"success":1,"result":[]}`, true, 0},
		{"result as object", `{"success":true,"result":{"id":"x"}}`, true, 0},
		{"trailing garbage", `{"success":true,"result":[]} {"success":false}`, true, 0},
		{"case of keys", `{"SUCCESS":true,"Result":[]}`, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, tc.body) })
			c := newTestClient(t, srv)
			cbs, err := c.Callbacks.List(context.Background())
			if tc.wantErr != (err != nil) {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err == nil && len(cbs) != tc.wantLen {
				t.Errorf("%d callbacks, want %d", len(cbs), tc.wantLen)
			}
			var de *DecodeError
			var ae *APIError
			if err != nil && !errors.As(err, &de) && !errors.As(err, &ae) {
				t.Errorf("err = %T %v, want a *DecodeError or an *APIError", err, err)
			}
		})
	}
}

// Deep nesting: the decoder refuses it at once instead of recursing.
func TestHostileDeepNesting(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"arrays", `{"success":true,"result":` + strings.Repeat("[", 100_000)},
		{"arrays closed", `{"success":true,"result":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`},
		{"objects", `{"success":true,"result":` + strings.Repeat(`{"a":`, 100_000) + "1" + strings.Repeat("}", 100_000) + `}`},
		{"error body", `{"success":false,"message":` + strings.Repeat(`{"message":`, 100_000) + `"x"` + strings.Repeat("}", 100_000) + `}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, tc.body)
			})
			c := newTestClient(t, srv)
			res := hsMeasure(t, func(ctx context.Context) error {
				_, err := c.Callbacks.List(ctx)
				return err
			})
			de := hsWantDecodeError(t, res.err)
			if de.Endpoint != "GET /callbacks" {
				t.Errorf("DecodeError = %v", de)
			}
			if res.alloc > hsMemBound {
				t.Errorf("the call allocated %d MiB", res.alloc>>20)
			}
		})
	}
}

// A turnaround nested in arrays thousands deep, around a large object:
// each level was once decoded by reading all of the levels inside it
// again, so a body of a few MiB kept a CPU busy for minutes.
func TestHostileNestedTurnaround(t *testing.T) {
	const depth = 9_000
	pad := strings.Repeat("p", 1<<20)
	body := `{"success":true,"result":[{"id":"7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b","price":1,"filing_methods":[{"filed_in":` +
		strings.Repeat("[", depth) + `{"days":1,"pad":"` + pad + `"}` + strings.Repeat("]", depth) + `}]}]}`
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, body)
	})
	c := newTestClient(t, srv)
	res := hsMeasure(t, func(ctx context.Context) error {
		_, err := c.FilingProducts.List(ctx, &FilingProductListParams{URL: "https://example.com", Jurisdiction: "Utah"})
		return err
	})
	de := hsWantDecodeError(t, res.err)
	if de.Path != "result[0].filing_methods[0].filed_in" {
		t.Errorf("DecodeError path = %q, want the turnaround", de.Path)
	}
	if res.alloc > hsMemBound {
		t.Errorf("the call allocated %d MiB", res.alloc>>20)
	}
}

// The envelope's timestamp is not read: no shape of it fails a good
// answer.
func TestEnvelopeTimestampIsIgnored(t *testing.T) {
	for _, ts := range []string{`"soon"`, `1700000000`, `{"at":1}`, `"2024-01-01 24:00:00 +0000"`, `null`} {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, `{"success":true,"timestamp":`+ts+`,"result":[{"id":"`+strings.Trim(sampleID, `"`)+`"}]}`)
		})
		got, err := newTestClient(t, srv).Services.List(context.Background(), nil)
		if err != nil || len(got) != 1 {
			t.Errorf("timestamp %s: %v, %v", ts, got, err)
		}
	}
}
