package acctadmin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// A refused form says which field: the API's per-field errors reach the
// caller as APIError.Fields, named as the request spelled them, and
// nothing is sent again.
func TestFieldErrorsOfARefusedForm(t *testing.T) {
	srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusUnprocessableEntity, `{"success":false,"message":"form_data is invalid",
			"errors":[{"field":"form_data.ssn","message":"must look like NNN-NN-NNNN"},{"field":"form_data.start_date","message":"is required"}]}`)
	})
	c := newTestClient(t, srv)
	_, err := c.OrderItems.SubmitFormData(context.Background(), &OrderItemFormDataParams{CompanyID: wcCompany, OrderItemID: wcOrder,
		FormData: map[string]any{"ssn": "12"}})
	var ae *APIError
	if !errors.As(err, &ae) || ae.StatusCode != 422 || errors.Is(err, ErrOutcomeUnknown) {
		t.Fatalf("err = %v, want a 422 *APIError of known outcome", err)
	}
	want := []FieldError{{"form_data.ssn", "must look like NNN-NN-NNNN"}, {"form_data.start_date", "is required"}}
	if !reflect.DeepEqual(ae.Fields, want) || ae.Message != "form_data is invalid" {
		t.Errorf("Fields = %+v, Message = %q; want %+v", ae.Fields, ae.Message, want)
	}
	if srv.count() != 1 {
		t.Errorf("%d requests, want 1", srv.count())
	}
	// The SDK's own check names a field the same way.
	_, err = c.ShoppingCart.Add(context.Background(), &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct, FormData: "x"})
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Field != "form_data" {
		t.Errorf("err = %v, want a *ValidationError for form_data", err)
	}
}

// The shapes of "errors" the API may use, and the bounds.
func TestFieldErrorShapes(t *testing.T) {
	long := strings.Repeat("é", 300)
	many := make([]map[string]string, 80)
	for i := range many {
		many[i] = map[string]string{"field": fmt.Sprintf("f%d", i), "message": "bad"}
	}
	manyJSON, _ := json.Marshal(map[string]any{"errors": many})
	for _, tc := range []struct {
		body string
		want []FieldError
	}{
		{`{"errors":[{"field":"number","message":"is not a card number"}]}`, []FieldError{{"number", "is not a card number"}}},
		{`{"errors":[{"attribute":"cvc","error":"too short"},{"message":"no field"}]}`, []FieldError{{"cvc", "too short"}}},
		{`{"errors":{"exp_year":["is in the past"],"cvc":"too short"}}`, []FieldError{{"cvc", "too short"}, {"exp_year", "is in the past"}}},
		{`{"errors":["just a message"]}`, nil},
		{`{"message":"no fields"}`, nil},
		{`not json`, nil},
		{`{"errors":[{"field":"` + long + `","message":"` + long + `"}]}`, []FieldError{{truncate(long, maxFieldText), truncate(long, maxFieldText)}}},
	} {
		if got := newAPIError(422, "POST", "/x", []byte(tc.body), nil).Fields; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%.60s: Fields = %+v, want %+v", tc.body, got, tc.want)
		}
	}
	if got := newAPIError(422, "POST", "/x", manyJSON, nil).Fields; len(got) != maxFieldErrors || got[49].Field != "f49" {
		t.Errorf("%d fields kept (last %+v), want the first %d", len(got), got[len(got)-1], maxFieldErrors)
	}
}

// Whatever the API sends under "errors", Fields stays bounded, holds only
// what was sent, and never shows a secret the request carried.
func TestFieldErrorsBoundedAndRedacted(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		red := &redactor{}
		red.add(wcPassword, "[redacted]")
		n := rapid.IntRange(0, 120).Draw(t, "n")
		items := make([]map[string]string, n)
		text := rapid.StringMatching(`[a-z_.\[\]0-9 é]{0,300}`)
		for i := range items {
			items[i] = map[string]string{"field": text.Draw(t, "field"), "message": text.Draw(t, "message") + " " + wcPassword}
		}
		body, _ := json.Marshal(map[string]any{"success": false, "errors": items})
		got := newAPIError(422, "POST", "/auth/login", body, red).Fields
		if len(got) > maxFieldErrors {
			t.Fatalf("%d fields kept", len(got))
		}
		j := 0
		for _, it := range items {
			if it["field"] == "" {
				continue
			}
			if j == len(got) {
				break
			}
			f := got[j]
			if len(f.Field) > maxFieldText+len("…") || len(f.Message) > maxFieldText+len("…") {
				t.Fatalf("field %d too long: %d, %d bytes", j, len(f.Field), len(f.Message))
			}
			if !strings.HasPrefix(it["field"], strings.TrimSuffix(f.Field, "…")) || strings.Contains(f.Message, wcPassword) {
				t.Fatalf("field %d = %+v from %+v", j, f, it)
			}
			j++
		}
		if nonEmpty := countNonEmpty(items); j != min(nonEmpty, maxFieldErrors) {
			t.Fatalf("kept %d of %d named fields", j, nonEmpty)
		}
	})
}

func countNonEmpty(items []map[string]string) int {
	n := 0
	for _, it := range items {
		if it["field"] != "" {
			n++
		}
	}
	return n
}
