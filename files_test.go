package acctadmin

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// Not a setting of the retry library, which passes any answer on: the SDK
// tells a file from a JSON failure or an HTML page by its content type.
func TestDownload(t *testing.T) {
	ctx := context.Background()
	t.Run("json failure", func(t *testing.T) {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, `{"success":false,"message":"document is being scanned"}`)
		})
		c := newTestClient(t, srv)
		f, err := c.file(ctx, routeDocumentsDownload.at("x"), nil, nil, "application/pdf")
		apiErr := tpAPIError(t, tpErr(t, err))
		if f != nil || apiErr.Message != "document is being scanned" || apiErr.Path != "/documents/x/download" {
			t.Errorf("APIError = %+v", apiErr)
		}
	})
	t.Run("json 404", func(t *testing.T) {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusNotFound, `{"success":false,"message":"no such document"}`)
		})
		c := newTestClient(t, srv)
		_, err := c.file(ctx, routeDocumentsDownload.at("x"), nil, nil, "application/pdf")
		if !errors.Is(tpErr(t, err), ErrNotFound) || tpAPIError(t, err).Message != "no such document" {
			t.Errorf("err = %v, want ErrNotFound with the message", err)
		}
	})
	t.Run("html", func(t *testing.T) {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = io.WriteString(w, "<html>login</html>")
		})
		c := newTestClient(t, srv)
		f, err := c.file(ctx, routeDocumentsDownload.at("x"), nil, nil, "application/pdf")
		var de *DecodeError
		if f != nil || !errors.As(tpErr(t, err), &de) {
			t.Fatalf("err = %v (%T), want a *DecodeError", err, err)
		}
		if de.Endpoint != "GET /documents/x/download" || !strings.Contains(de.Error(), "text/html") {
			t.Errorf("DecodeError = %v", de)
		}
	})
	t.Run("pdf", func(t *testing.T) {
		content := []byte("%PDF-1.7\n%binary\x00\xff\n%%EOF\n")
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Header().Set("Content-Length", strconv.Itoa(len(content)))
			w.Header().Set("Content-Disposition", `attachment; filename="../../etc/x.pdf"`)
			_, _ = w.Write(content)
		})
		c := newTestClient(t, srv)
		f, err := c.file(ctx, routeDocumentsDownload.at("x"), nil, nil, "application/pdf")
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(f)
		if err != nil || !bytes.Equal(got, content) {
			t.Errorf("body = %q, %v", got, err)
		}
		if err := f.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if f.ContentType != "application/pdf" || f.ContentLength != int64(len(content)) || f.Filename != "x.pdf" {
			t.Errorf("File = type %q, length %d, name %q", f.ContentType, f.ContentLength, f.Filename)
		}
		if r := srv.last(t); !r.AuthOK || r.Method != http.MethodGet {
			t.Errorf("request = %+v", r)
		}
	})
}

// TestDownloadFilename: File.Filename is the last element of the name
// Content-Disposition gives, and "" when that is no name a caller could
// save under: never a path, never . or .., never a name with NUL.
func TestDownloadFilename(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ disposition, want string }{
		{`attachment; filename="notice.pdf"`, "notice.pdf"},
		{`attachment; filename=".."`, ""},
		{`attachment; filename="."`, ""},
		{`attachment; filename="../x"`, "x"},
		{`attachment; filename="a/../.."`, ""},
		{`attachment; filename="a/b/.."`, ""},
		{`attachment; filename="..\\.."`, ""},
		{`attachment; filename="C:\\Users\\x\\..\\evil.pdf"`, "evil.pdf"},
		{`attachment; filename="..."`, ""},
		{`attachment; filename=". ."`, ""},
		{`attachment; filename=".. "`, ""},
		{`attachment; filename="x/"`, ""},
		{`attachment; filename=""`, ""},
		{`attachment; filename*=UTF-8''..%2F..`, ""},
		{`attachment; filename*=UTF-8''a%00b.pdf`, ""},
		{`attachment; filename*=UTF-8''a%0Ab.pdf`, ""},
		{`attachment; filename*=UTF-8''%2E%2E`, ""},
		{`attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`, "résumé.pdf"},
		{`attachment; filename=".hidden"`, ".hidden"},
		{`attachment`, ""},
		{``, ""},
	} {
		srv := newAPIServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			if tc.disposition != "" {
				w.Header().Set("Content-Disposition", tc.disposition)
			}
			_, _ = io.WriteString(w, "%PDF-1.7\n")
		})
		c := newTestClient(t, srv)
		f, err := c.file(ctx, routeDocumentsDownload.at("x"), nil, nil, "application/pdf")
		if err != nil {
			t.Fatalf("%s: %v", tc.disposition, err)
		}
		f.Close()
		if f.Filename != tc.want {
			t.Errorf("%s: Filename = %q, want %q", tc.disposition, f.Filename, tc.want)
		}
	}
}

// TestSafeFilenameNeverLeavesTheFolder proves on generated names, made of
// the characters that build paths, that a name kept is one element that
// stays in the folder it is joined to, and that a plain name is kept whole.
func TestSafeFilenameNeverLeavesTheFolder(t *testing.T) {
	dir := filepath.Join("srv", "files")
	rapid.Check(t, func(rt *rapid.T) {
		name := rapid.StringOfN(rapid.SampledFrom([]rune{'.', '/', '\\', ' ', 'a', 'b', 0, '\n', ':'}), 0, 12, -1).Draw(rt, "name")
		got := safeFilename(name)
		if got == "" {
			if plain := strings.Trim(name, ". ") != "" && !strings.ContainsAny(name, "/\\\x00\n"); plain {
				rt.Fatalf("safeFilename(%q) = \"\", want the name kept", name)
			}
			return
		}
		if strings.ContainsAny(got, "/\\\x00\n") || got == "." || got == ".." || strings.Trim(got, ". ") == "" {
			rt.Fatalf("safeFilename(%q) = %q, not one plain element", name, got)
		}
		if joined := filepath.Join(dir, got); filepath.Dir(joined) != dir {
			rt.Fatalf("safeFilename(%q) = %q, which joined to %s is %s", name, got, dir, joined)
		}
		if !strings.HasSuffix(strings.ReplaceAll(name, "\\", "/"), "/"+got) && name != got {
			rt.Fatalf("safeFilename(%q) = %q, not the name's last element", name, got)
		}
	})
}

// Binary endpoints that answer something else: JSON (success or not,
// small or endless), HTML, the other binary type. Each is a typed error;
// the endless ones are cut at the caps.
func TestBinaryEndpointsAnsweringSomethingElse(t *testing.T) {
	id := uuid.MustParse("7d4a1f3e-8b2c-4e5f-9a6b-1c2d3e4f5a6b")
	for _, tc := range []struct {
		name    string
		handler func(s *hsServer, w http.ResponseWriter, r *http.Request)
		call    func(ctx context.Context, c *Client) (*File, error)
		check   func(t *testing.T, err error)
	}{
		{
			name: "json success for a pdf",
			handler: func(s *hsServer, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, `{"success":true,"result":{"id":"x"}}`)
			},
			call: func(ctx context.Context, c *Client) (*File, error) { return c.Documents.Download(ctx, id) },
			check: func(t *testing.T, err error) {
				if de := hsWantDecodeError(t, err); !strings.Contains(de.Error(), `"application/json"`) {
					t.Errorf("DecodeError = %v, want it to name the content type", de)
				}
			},
		},
		{
			name: "json failure for a png",
			handler: func(s *hsServer, w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, `{"success":false,"message":"page not rendered"}`)
			},
			call: func(ctx context.Context, c *Client) (*File, error) { return c.Resources.Page(ctx, id, 0, nil) },
			check: func(t *testing.T, err error) {
				if apiErr := tpAPIError(t, err); apiErr.Message != "page not rendered" || apiErr.StatusCode != 200 {
					t.Errorf("APIError = %+v", apiErr)
				}
			},
		},
		{
			name: "endless json for a pdf",
			handler: func(s *hsServer, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"success":false,"message":"`)
				s.stream(w, r, bytes.Repeat([]byte("x"), 64<<10), -1)
			},
			call: func(ctx context.Context, c *Client) (*File, error) { return c.Resources.Download(ctx, id) },
			check: func(t *testing.T, err error) {
				hsWantDecodeError(t, err)
			},
		},
		{
			name: "endless html for a png",
			handler: func(s *hsServer, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				s.stream(w, r, bytes.Repeat([]byte("<p>login</p>"), 4<<10), -1)
			},
			call: func(ctx context.Context, c *Client) (*File, error) {
				return c.Documents.Page(ctx, id, 2, &PageParams{DPI: 72})
			},
			check: func(t *testing.T, err error) {
				if de := hsWantDecodeError(t, err); !strings.Contains(de.Error(), "text/html") {
					t.Errorf("DecodeError = %v", de)
				}
			},
		},
		{
			name: "pdf for a png",
			handler: func(s *hsServer, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/pdf")
				_, _ = io.WriteString(w, "%PDF-1.4\n")
			},
			call: func(ctx context.Context, c *Client) (*File, error) { return c.Documents.Page(ctx, id, 0, nil) },
			check: func(t *testing.T, err error) {
				if de := hsWantDecodeError(t, err); !strings.Contains(de.Error(), "application/pdf") {
					t.Errorf("DecodeError = %v", de)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newHostileServer(t, tc.handler)
			c := newTestClient(t, srv.apiServer)
			res := hsMeasure(t, func(ctx context.Context) error {
				f, err := tc.call(ctx, c)
				if f != nil {
					f.Close()
					t.Errorf("got a file of type %q", f.ContentType)
				}
				return err
			})
			tc.check(t, res.err)
			if res.alloc > hsMemBound {
				t.Errorf("the call allocated %d MiB", res.alloc>>20)
			}
			srv.settled(t)
		})
	}
}

// The redirect to another host, whose request must not carry the
// credentials, is TestRedirects (transport_test.go);
// TestSecretsNeverLeak runs every method against one.
