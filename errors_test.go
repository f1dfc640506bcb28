package acctadmin

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestAPIErrorSentinels(t *testing.T) {
	cases := []struct {
		status int
		want   error
	}{
		{http.StatusNotFound, ErrNotFound},
		{http.StatusUnauthorized, ErrUnauthorized},
		{http.StatusForbidden, ErrForbidden},
		{http.StatusTooManyRequests, ErrRateLimited},
		{http.StatusInternalServerError, ErrServer},
		{http.StatusBadGateway, ErrServer},
		{http.StatusServiceUnavailable, ErrServer},
	}
	sentinels := []error{ErrNotFound, ErrUnauthorized, ErrForbidden, ErrRateLimited, ErrServer, ErrInvalidParams}
	for _, tc := range cases {
		err := fmt.Errorf("wrapped: %w", newAPIError(tc.status, "GET", "/documents", nil, nil))
		for _, s := range sentinels {
			if got := errors.Is(err, s); got != (s == tc.want) {
				t.Errorf("status %d: errors.Is(err, %v) = %v", tc.status, s, got)
			}
		}
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.status {
			t.Errorf("status %d: errors.As gave %v", tc.status, apiErr)
		}
	}
	overCap := newAPIError(http.StatusServiceUnavailable, "GET", "/x", nil, nil)
	overCap.RetryAfter = time.Hour
	if !errors.Is(overCap, ErrRateLimited) || !errors.Is(overCap, ErrServer) {
		t.Fatal("a 503 with a Retry-After over the cap is both ErrServer and ErrRateLimited")
	}
	overCap.RetryAfter = 30 * time.Second
	if errors.Is(overCap, ErrRateLimited) {
		t.Fatal("a 503 with a Retry-After under the cap is not ErrRateLimited")
	}
	if errors.Is(newAPIError(400, "GET", "/x", nil, nil), ErrNotFound) {
		t.Fatal("a 400 is not ErrNotFound")
	}
}

func TestAPIErrorMessageShapes(t *testing.T) {
	cases := map[string]string{
		`{"success":false,"message":"company not found"}`:           "company not found",
		`{"error":"bad limit"}`:                                     "bad limit",
		`{"error":{"code":"x","message":"nested message"}}`:         "nested message",
		`{"errors":["first","second"]}`:                             "first; second",
		`{"errors":[{"field":"limit","message":"too big"}]}`:        "too big",
		`{"success":false,"timestamp":"2024-05-01 10:00:00 -0600"}`: "bad request",
		`<html>Bad Gateway</html>`:                                  "bad request",
		``:                                                          "bad request",
		`{"message":"` + strings.Repeat("a", 600) + `"}`:            strings.Repeat("a", 500) + "…",
	}
	for body, want := range cases {
		e := newAPIError(http.StatusBadRequest, "POST", "/services", []byte(body), nil)
		if e.Message != want {
			t.Errorf("body %.40q: message %q, want %q", body, e.Message, want)
		}
		if e.Error() != "acctadmin: POST /services: 400 "+want {
			t.Errorf("Error() = %q", e.Error())
		}
	}
}

func TestAPIErrorBodyIsCapped(t *testing.T) {
	body := []byte(strings.Repeat("x", maxErrorBody*2))
	if e := newAPIError(500, "GET", "/x", body, nil); len(e.Body) != maxErrorBody {
		t.Fatalf("body kept %d bytes, want %d", len(e.Body), maxErrorBody)
	}
}

func TestValidationErrorIsInvalidParams(t *testing.T) {
	err := fmt.Errorf("call: %w", invalid("limit", "must be at most %d, got %d", 100, 101))
	var ve *ValidationError
	if !errors.Is(err, ErrInvalidParams) || !errors.As(err, &ve) || ve.Field != "limit" {
		t.Fatalf("got %v", err)
	}
	if ve.Error() != "acctadmin: invalid limit: must be at most 100, got 101" {
		t.Fatalf("message %q", ve.Error())
	}
	if errors.Is(err, ErrNotFound) {
		t.Fatal("a validation error is not ErrNotFound")
	}
}

func TestDecodeErrorUnwraps(t *testing.T) {
	cause := errors.New("boom")
	err := fmt.Errorf("x: %w", &DecodeError{Endpoint: "GET /documents", Path: "result[2].pages", Err: cause})
	var de *DecodeError
	if !errors.Is(err, cause) || !errors.As(err, &de) || de.Path != "result[2].pages" {
		t.Fatalf("got %v", err)
	}
	if de.Error() != "acctadmin: decode GET /documents: result[2].pages: boom" {
		t.Fatalf("message %q", de.Error())
	}
}
