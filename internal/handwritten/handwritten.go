// Package handwritten is the client a user would write for the Account
// Administration API without this SDK, the way the provider's own example
// clients work: net/http with its default transport, a token signed with
// golang-jwt for every request, io.ReadAll and json.Unmarshal into plain
// structs (times and ids as strings), one page after another, and whole
// files read into memory. It handles none of the API's quirks and retries
// nothing.
//
// It exists only as the baseline of the benchmarks in internal/benchmarks,
// which measure the SDK against it; nothing else should use it.
package handwritten

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/golang-jwt/jwt/v5"
)

// Client calls the API with net/http.
type Client struct {
	// BaseURL is the API's base URL, without a trailing slash.
	BaseURL   string
	AccessKey string
	SecretKey string
	// HTTP sends the requests.
	HTTP *http.Client
}

// New returns a Client that sends its requests with http.DefaultClient.
func New(baseURL, accessKey, secretKey string) *Client {
	return &Client{BaseURL: baseURL, AccessKey: accessKey, SecretKey: secretKey, HTTP: http.DefaultClient}
}

// Callback is a registered callback URL.
type Callback struct {
	ID        string `json:"id"`
	CreatedAt string `json:"created_at"`
	URL       string `json:"url"`
}

// Document is a document received for a company, with the fields the API
// description lists.
type Document struct {
	ID            string `json:"id"`
	CreatedAt     string `json:"created_at"`
	UpdatedAt     string `json:"updated_at"`
	Title         string `json:"title"`
	Status        string `json:"status"`
	Type          string `json:"type"`
	Source        string `json:"source"`
	Pages         int    `json:"pages"`
	PaymentLocked bool   `json:"payment_locked"`
	Jurisdiction  string `json:"jurisdiction"`
	CompanyName   string `json:"company_name"`
	CompanyID     string `json:"company_id"`
}

// Envelope is the API's answer around a result.
type Envelope[T any] struct {
	Timestamp string `json:"timestamp"`
	Result    T      `json:"result"`
}

// StatusError is an answer with a status other than 200.
type StatusError struct {
	StatusCode int
	Body       string
}

// Error implements error.
func (e *StatusError) Error() string {
	return fmt.Sprintf("handwritten: status %d: %s", e.StatusCode, e.Body)
}

// Sign returns the bearer token of a request for path (without the query
// string) with body (nil for none): HS256 with the secret key, the access
// key in the header, the path and the body's SHA-256 as the claims.
func (c *Client) Sign(path string, body []byte) (string, error) {
	sum := sha256.Sum256(body)
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"path":    path,
		"content": hex.EncodeToString(sum[:]),
	})
	t.Header["access_key"] = c.AccessKey
	return t.SignedString([]byte(c.SecretKey))
}

// Do sends a signed request and returns the answer, whatever its status.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body []byte) (*http.Response, error) {
	u := c.BaseURL + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return nil, err
	}
	token, err := c.Sign(path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	return c.HTTP.Do(req)
}

// get sends a GET and returns the whole body of a 200 answer.
func (c *Client) get(ctx context.Context, path string, query url.Values) ([]byte, error) {
	resp, err := c.Do(ctx, http.MethodGet, path, query, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &StatusError{StatusCode: resp.StatusCode, Body: string(b)}
	}
	return b, nil
}

// getJSON sends a GET and decodes the result of its answer.
func getJSON[T any](ctx context.Context, c *Client, path string, query url.Values) (T, error) {
	var env Envelope[T]
	b, err := c.get(ctx, path, query)
	if err != nil {
		return env.Result, err
	}
	err = json.Unmarshal(b, &env)
	return env.Result, err
}

// ListCallbacks returns the registered callbacks. GET /callbacks.
func (c *Client) ListCallbacks(ctx context.Context) ([]Callback, error) {
	return getJSON[[]Callback](ctx, c, "/callbacks", nil)
}

// ListDocuments returns one page of documents of a status ("read" or
// "unread"). GET /documents.
func (c *Client) ListDocuments(ctx context.Context, status string, limit, offset int) ([]Document, error) {
	q := url.Values{}
	q.Set("status", status)
	q.Set("limit", strconv.Itoa(limit))
	q.Set("offset", strconv.Itoa(offset))
	return getJSON[[]Document](ctx, c, "/documents", q)
}

// GetDocument returns one document. GET /documents/:id.
func (c *Client) GetDocument(ctx context.Context, id string) (Document, error) {
	return getJSON[Document](ctx, c, "/documents/"+id, nil)
}

// DownloadDocument returns the whole PDF of a document.
// GET /documents/:id/download.
func (c *Client) DownloadDocument(ctx context.Context, id string) ([]byte, error) {
	return c.get(ctx, "/documents/"+id+"/download", nil)
}
