package webhook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// The event names the API documents. Other names are passed through in
// Event.Name unchanged.
const (
	// EventNewInvoice is sent when a new invoice is created. It carries an
	// invoice id, a company id and a company name.
	EventNewInvoice string = "new-invoice"

	// EventNewDocument is sent when a new document is uploaded. It carries
	// a document id, a company id and a company name.
	EventNewDocument string = "new-document"
)

// Event is a verified callback event.
//
// The typed fields are read from the claims under any of the spellings the
// package documentation lists. A field whose claim is missing, is not a
// string, is not a UUID (for the id fields), or is spelled twice with
// different values is left at its zero value; the claim stays readable in
// Claims.
type Event struct {
	// Name is the event name, such as EventNewInvoice or EventNewDocument,
	// or whatever name the token carried.
	Name string

	// InvoiceID is the id of the new invoice (new-invoice events).
	InvoiceID uuid.UUID

	// DocumentID is the id of the new document (new-document events).
	DocumentID uuid.UUID

	// CompanyID is the id of the company the event is about.
	CompanyID uuid.UUID

	// CompanyName is the name of the company the event is about.
	CompanyName string

	// IssuedAt is the time from the iat claim, in UTC, or the zero time
	// when the token has none (the API's tokens have none).
	IssuedAt time.Time

	// ID is the jti claim, or "" when the token has none (the API's tokens
	// have none).
	ID string

	// Claims holds every claim of the token as decoded from JSON, with
	// numbers as json.Number.
	Claims map[string]any

	// replayKey is the key Verify claimed in the replay cache, or "" when
	// nothing was claimed; replayOwner is the owner of that claim, and
	// leaseEnd a time no later than the end of its lease, as measured
	// from before the claim was sent.
	replayKey   string
	replayOwner string
	leaseEnd    time.Time
}

// attribute tells where an event attribute may be found: under one of keys,
// or as the field field of an object under object. Names are normalised
// (see normalize) and listed most specific first.
type attribute struct {
	keys          []string
	object, field string
}

var (
	nameAttr        = attribute{keys: []string{"event", "eventname", "eventtype", "type", "name"}}
	invoiceIDAttr   = attribute{keys: []string{"invoiceid"}, object: "invoice", field: "id"}
	documentIDAttr  = attribute{keys: []string{"documentid"}, object: "document", field: "id"}
	companyIDAttr   = attribute{keys: []string{"companyid"}, object: "company", field: "id"}
	companyNameAttr = attribute{keys: []string{"companyname", "company"}, object: "company", field: "name"}
)

// nestedScopes are the object claims whose members are searched for event
// attributes after the top-level claims, in this order.
var nestedScopes = []string{"data", "payload"}

// normalize folds a claim name so that its spellings compare equal:
// invoice_id, invoiceId, invoiceID, invoice-id and InvoiceId all become
// invoiceid.
func normalize(key string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return -1
		}
		return r
	}, strings.ToLower(key))
}

// normalizesTo reports whether normalize(key) == want, where want is
// already normalised. It allocates nothing for an ASCII key, which is
// compared byte by byte; any other key goes through normalize, since
// case folding can turn a non-ASCII letter into an ASCII one.
func normalizesTo(key, want string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return normalize(key) == want
		}
	}
	j := 0
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '_' || c == '-':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if j == len(want) || want[j] != c {
			return false
		}
		j++
	}
	return j == len(want)
}

// newEvent maps verified claims onto an Event. The registered claims have
// been type-checked by inspect.
func newEvent(claims map[string]any) *Event {
	ev := &Event{Claims: claims}
	scopes := eventScopes(claims)
	ev.Name = find(scopes, nameAttr)
	ev.InvoiceID = parseUUID(find(scopes, invoiceIDAttr))
	ev.DocumentID = parseUUID(find(scopes, documentIDAttr))
	ev.CompanyID = parseUUID(find(scopes, companyIDAttr))
	ev.CompanyName = find(scopes, companyNameAttr)
	ev.ID, _ = claims["jti"].(string)
	if v, ok := claims["iat"]; ok {
		ev.IssuedAt, _ = numericDate(v)
	}
	return ev
}

// eventScopes returns the levels searched for attributes: the top-level
// claims, then every object under a claim named data, then every object
// under a claim named payload (names compared after normalize).
func eventScopes(claims map[string]any) [][]map[string]any {
	scopes := [][]map[string]any{{claims}}
	for _, name := range nestedScopes {
		scopes = append(scopes, objectsUnder([]map[string]any{claims}, name))
	}
	return scopes
}

// objectsUnder returns the JSON objects found in ms under keys whose
// normalised form is name. Their order does not matter: lookup gives the
// same answer for any order.
func objectsUnder(ms []map[string]any, name string) []map[string]any {
	var out []map[string]any
	for _, m := range ms {
		for k, v := range m {
			if obj, ok := v.(map[string]any); ok && normalizesTo(k, name) {
				out = append(out, obj)
			}
		}
	}
	return out
}

// find looks attr up level by level and returns the first non-empty string
// it finds. When one level holds the same attribute spelled more than once
// with different values, the attribute is ambiguous and find returns "".
func find(scopes [][]map[string]any, attr attribute) string {
	for _, level := range scopes {
		for _, key := range attr.keys {
			if v, ok := lookup(level, key); ok {
				return v
			}
		}
		if attr.object != "" {
			if v, ok := lookup(objectsUnder(level, attr.object), attr.field); ok {
				return v
			}
		}
	}
	return ""
}

// lookup collects the non-empty string values under every key of ms whose
// normalised form is key. It reports whether any was found, and returns
// the value when they all agree.
func lookup(ms []map[string]any, key string) (string, bool) {
	found := false
	value := ""
	for _, m := range ms {
		for k, v := range m {
			s, ok := v.(string)
			if !ok || s == "" || !normalizesTo(k, key) {
				continue
			}
			if found && s != value {
				return "", true
			}
			found, value = true, s
		}
	}
	return value, found
}

// parseUUID parses s as a UUID, or returns the zero UUID.
func parseUUID(s string) uuid.UUID {
	u, err := uuid.Parse(s)
	if err != nil {
		return uuid.UUID{}
	}
	return u
}

// identity returns the key under which the replay cache remembers ev: its
// jti when it has one; otherwise its name and ids (in canonical form when
// they are UUIDs); otherwise, for an event that carries no id at all, its
// claims in canonical JSON (sorted keys). It never depends on the token
// text, which may be re-encoded or re-signed without changing the event.
// The key is hashed so that its length is fixed.
func (ev *Event) identity() string {
	var s string
	switch {
	case ev.ID != "":
		s = "jti\x00" + ev.ID
	default:
		scopes := eventScopes(ev.Claims)
		ids := []string{
			canonicalID(find(scopes, invoiceIDAttr)),
			canonicalID(find(scopes, documentIDAttr)),
			canonicalID(find(scopes, companyIDAttr)),
		}
		if ids[0] != "" || ids[1] != "" || ids[2] != "" {
			s = "event\x00" + ev.Name + "\x00" + strings.Join(ids, "\x00")
			break
		}
		// Claims were decoded from JSON, so they always marshal; map keys
		// come out sorted.
		b, _ := json.Marshal(ev.Claims)
		s = "claims\x00" + string(b)
	}
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// canonicalID returns the canonical text of s when it is a UUID, else s.
func canonicalID(s string) string {
	if u, err := uuid.Parse(s); err == nil {
		return u.String()
	}
	return s
}

type contextKey struct{}

// FromContext returns the event that Handler verified for the request
// whose context is ctx (or a context derived from it), and whether there
// is one.
func FromContext(ctx context.Context) (*Event, bool) {
	ev, ok := ctx.Value(contextKey{}).(*Event)
	return ev, ok
}
