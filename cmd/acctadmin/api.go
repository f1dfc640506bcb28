package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/spf13/cobra"
)

// maxPages bounds the pages --paginate reads; a listing longer is an
// error.
const maxPages = 10000

func (a *app) apiCommand() *cobra.Command {
	var typed, raw []string
	var paginate bool
	var out, input string
	cmd := &cobra.Command{
		Use:   "api METHOD PATH [-F key=value]... [--paginate] [--out FILE]",
		Short: "Send a signed request to any route of the API",
		Long: `Send a request to any route of the API, signed and retried as the SDK does
(Client.Do; Client.DoFile with --out), and print the result of the API's
envelope as JSON.

-F key=value adds a parameter: to the query string for GET and DELETE, to the
JSON body otherwise. Values true, false, null and numbers are sent as JSON
values, others as strings; -f key=value always sends a string. A key ending
in [] makes an array (repeat it), as company_ids[]=ID. --input FILE sends the
file (- for standard input) as the JSON body instead.

--paginate follows limit and offset (limit 100 unless -F limit=N says
otherwise) until the listing ends, and prints one merged array, each record
(by its id) once. A page of records all read before means that the API
ignores offset: --paginate then stops with an error.

--out FILE writes a file route's answer (a PDF, a PNG) to FILE (- for
standard output).`,
		Example: `  acctadmin api GET /services
  acctadmin api GET /documents -F status=read --paginate --jq 'length'
  acctadmin api POST /callbacks -f url=https://example.com/hooks
  acctadmin api POST /companies --input companies.json
  acctadmin api GET /documents/3f1e.../download --out doc.pdf
  acctadmin api PATCH /companies --input - <<< '{"companies":[{"company":"Acme","entity_type":"LLC"}]}'`,
		Args: exactArgs(2),
	}
	f := cmd.Flags()
	f.StringArrayVarP(&typed, "field", "F", nil, "a parameter `key=value` (JSON-typed value)")
	f.StringArrayVarP(&raw, "raw-field", "f", nil, "a parameter `key=value` (string value)")
	f.BoolVar(&paginate, "paginate", false, "read every page (limit and offset) and print one array")
	f.StringVar(&out, "out", "", "write a file answer to `FILE` (- for standard output)")
	f.StringVar(&input, "input", "", "send `FILE` (- for standard input) as the JSON body")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		req, err := a.buildRaw(args[0], args[1], typed, raw, input)
		if err != nil {
			return err
		}
		if paginate && req.Method != "GET" {
			return usageErrorf("--paginate follows the pages of a GET listing, not of %s", req.Method)
		}
		if paginate && out != "" {
			return usageErrorf("--paginate and --out do not go together")
		}
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		c, err := a.client()
		if err != nil {
			return err
		}
		if out != "" {
			file, err := c.DoFile(a.ctx, req)
			if err != nil {
				return err
			}
			return a.saveFile(file, out, "")
		}
		if paginate {
			merged, err := a.paginate(c, req)
			if err != nil {
				return err
			}
			return a.printJSON(merged)
		}
		var result json.RawMessage
		if err := c.Do(a.ctx, req, &result); err != nil {
			return withHint(err, "a route that answers a file needs --out FILE")
		}
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		return a.printJSON(result)
	}
	return a.addDryRun(cmd)
}

// idSegment matches a path segment that is an id, for the hooks' pattern.
var idSegment = regexp.MustCompile(`/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(/|$)`)

// buildRaw makes the request of acctadmin api.
func (a *app) buildRaw(method, path string, typed, raw []string, input string) (*acctadmin.RawRequest, error) {
	method = strings.ToUpper(method)
	switch method {
	case "GET", "POST", "PATCH", "PUT", "DELETE":
	default:
		return nil, usageErrorf("method %q: want GET, POST, PATCH, PUT or DELETE", method)
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	u, err := url.Parse(path)
	if err != nil || u.Host != "" || u.Scheme != "" {
		return nil, usageErrorf("path %q: want a path of the API, as /services", path)
	}
	req := &acctadmin.RawRequest{Method: method, Path: u.Path, Query: u.Query()}
	req.Pattern = idSegment.ReplaceAllString(req.Path, "/{id}$1")
	inQuery := method == "GET" || method == "DELETE"
	body := map[string]any{}
	add := func(kv string, typedValue bool) error {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usageErrorf("field %q: want key=value", kv)
		}
		if inQuery {
			req.Query.Add(k, v)
			return nil
		}
		var val any = v
		if typedValue {
			val = jsonValue(v)
		}
		if name, ok := strings.CutSuffix(k, "[]"); ok {
			arr, _ := body[name].([]any)
			body[name] = append(arr, val)
			return nil
		}
		body[k] = val
		return nil
	}
	for _, kv := range typed {
		if err := add(kv, true); err != nil {
			return nil, err
		}
	}
	for _, kv := range raw {
		if err := add(kv, false); err != nil {
			return nil, err
		}
	}
	if input != "" {
		if len(body) > 0 {
			return nil, usageErrorf("give the body with --input or with fields, not both")
		}
		var r io.Reader = a.stdin
		if input != "-" {
			f, err := os.Open(input)
			if err != nil {
				return nil, usageError{err}
			}
			defer f.Close()
			r = f
		}
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, usageError{err}
		}
		b = bytes.TrimSpace(b)
		if !json.Valid(b) {
			return nil, usageErrorf("--input %s is not valid JSON", input)
		}
		req.Body = json.RawMessage(b)
	} else if len(body) > 0 {
		req.Body = body
	}
	return req, nil
}

// jsonValue reads a -F value: true, false, null and numbers as JSON,
// anything else as a string.
func jsonValue(s string) any {
	switch s {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil && json.Valid([]byte(s)) {
		return json.Number(s)
	}
	return s
}

// paginate reads every page of a GET listing by limit and offset and
// returns one merged array. A page shorter than the one before, or empty,
// ends the listing, as the SDK's All does (servers cap pages below the
// limit, so a page shorter than asked for alone does not); a page longer
// than asked for is the whole listing.
//
// A server that ignores offset answers the same records again and again,
// perhaps each time with a field that changes (the time it answered), so
// records are told apart by their "id": a record seen before is not
// printed twice, and a page whose records were all seen before is an
// error (unless it is shorter than the one before, which ends the
// listing), as is a page without ids that repeats the one before. Past
// maxPages pages the listing is an error too, never a partial answer.
func (a *app) paginate(c *acctadmin.Client, req *acctadmin.RawRequest) ([]byte, error) {
	limit := 100
	if s := req.Query.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, usageErrorf("limit %q: want a whole number from 1", s)
		}
		limit = n
	}
	offset := 0
	if s := req.Query.Get("offset"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, usageErrorf("offset %q: want a whole number from 0", s)
		}
		offset = n
	}
	all := []json.RawMessage{}
	seen := map[string]bool{}
	prev := -1
	prevPage := ""
	for range maxPages {
		q := url.Values{}
		for k, v := range req.Query {
			q[k] = v
		}
		q.Set("limit", strconv.Itoa(limit))
		q.Set("offset", strconv.Itoa(offset))
		page := *req
		page.Query = q
		var result json.RawMessage
		if err := c.Do(a.ctx, &page, &result); err != nil {
			return nil, err
		}
		var items []json.RawMessage
		if err := json.Unmarshal(result, &items); err != nil {
			return nil, fmt.Errorf("%s %s: --paginate needs a listing, and the result is not an array", req.Method, req.Path)
		}
		if len(items) > 0 && string(result) == prevPage {
			return nil, repeatError(req, offset)
		}
		prevPage = string(result)
		fresh := 0
		for _, it := range items {
			id := recordID(it)
			if id == "" {
				all = append(all, it)
				fresh++
				continue
			}
			if seen[id] {
				continue
			}
			seen[id] = true
			all = append(all, it)
			fresh++
		}
		shorter := prev >= 0 && len(items) < prev
		if len(items) > 0 && fresh == 0 && !shorter {
			return nil, repeatError(req, offset)
		}
		if len(items) == 0 || len(items) > limit || shorter {
			return json.Marshal(all)
		}
		prev = len(items)
		offset += len(items)
	}
	return nil, fmt.Errorf("%s %s: --paginate read %d pages and the listing has not ended; read it in parts with -F offset=N -F limit=N", req.Method, req.Path, maxPages)
}

// repeatError says that the page at offset held only records seen before.
func repeatError(req *acctadmin.RawRequest, offset int) error {
	return fmt.Errorf("%s %s: the page at offset %d holds only records already read: the API ignores offset here, so --paginate stops; read the first page without --paginate", req.Method, req.Path, offset)
}

// recordID is the "id" of a listing's record, as its JSON text, or "" when
// the record has none.
func recordID(record json.RawMessage) string {
	var r struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(record, &r) != nil || len(r.ID) == 0 || string(r.ID) == "null" {
		return ""
	}
	return string(r.ID)
}
