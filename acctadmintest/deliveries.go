package acctadmintest

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/acctadmin/acctadmin-go/webhook"
)

// Ways SendEvent forges an event, for a receiver's tests of what it must
// refuse or tolerate.
const (
	// ForgeBadSignature signs the event with a secret that is not the
	// account's.
	ForgeBadSignature = "bad-signature"
	// ForgeExpired adds iat and exp claims an hour and more in the past.
	ForgeExpired = "expired"
	// ForgeUnknownRecord names an invoice or document (and company) the
	// account does not have.
	ForgeUnknownRecord = "unknown-record"
)

// EventInput describes an event for SendEvent.
type EventInput struct {
	// Event is new-invoice or new-document.
	Event string
	// RecordID is the invoice or document the event is about; it must
	// exist, unless Forge is ForgeUnknownRecord (then a zero RecordID is
	// a random one).
	RecordID uuid.UUID
	// URL limits the delivery to one callback URL, which need not be
	// registered; "" delivers to every registered callback.
	URL string
	// Forge, when not "", forges the event (see ForgeBadSignature and the
	// others).
	Forge string
	// Copies is how many times the same token is posted to each URL, one
	// delivery each (default 1): a duplicate delivery, as a retrying
	// sender makes.
	Copies int
}

// SendEvent signs an event about a record and delivers it, as the fake
// does when a record is added, or forged as in.Forge says. Deliveries are
// retried and logged as any other.
func (f *Fake) SendEvent(in EventInput) error {
	if in.Copies == 0 {
		in.Copies = 1
	}
	if in.Copies < 0 || in.Copies > 100 {
		return errors.New("copies must be from 1 to 100")
	}
	claims, err := f.eventClaims(in)
	if err != nil {
		return err
	}
	secret := []byte(f.SecretKey)
	switch in.Forge {
	case "", ForgeUnknownRecord:
	case ForgeBadSignature:
		secret = []byte(randomHex(32))
	case ForgeExpired:
		now := f.now()
		claims["iat"] = now.Add(-2 * time.Hour).Unix()
		claims["exp"] = now.Add(-time.Hour).Unix()
	default:
		return fmt.Errorf("forge must be %s, %s or %s", ForgeBadSignature, ForgeExpired, ForgeUnknownRecord)
	}
	token, err := webhook.Sign(claims, secret, webhook.WithSignAccessKey(f.AccessKey))
	if err != nil {
		return err
	}
	var urls []string
	if in.URL != "" {
		if !validCallbackURL(in.URL) {
			return errors.New("url must be an absolute http or https URL")
		}
		urls = []string{in.URL}
	}
	f.dispatch(in.Event, claims, token, urls, in.Copies)
	return nil
}

// eventClaims writes the claims of an event about a record.
func (f *Fake) eventClaims(in EventInput) (map[string]any, error) {
	key := map[string]string{"new-invoice": "invoice_id", "new-document": "document_id"}[in.Event]
	if key == "" {
		return nil, errors.New("event must be new-invoice or new-document")
	}
	claims := map[string]any{"event": in.Event}
	if in.Forge == ForgeUnknownRecord {
		id := in.RecordID
		f.mu.Lock()
		if id == uuid.Nil {
			id = f.newID()
		}
		company := f.newID()
		f.mu.Unlock()
		claims[key], claims["company_id"], claims["company_name"] = id.String(), company.String(), "Unknown Company LLC"
		return claims, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var company uuid.UUID
	if in.Event == "new-invoice" {
		inv := f.st.invoices.get(in.RecordID)
		if inv == nil {
			return nil, errors.New("no invoice " + in.RecordID.String())
		}
		company = inv.CompanyID
	} else {
		d := f.st.documents.get(in.RecordID)
		if d == nil {
			return nil, errors.New("no document " + in.RecordID.String())
		}
		company = d.CompanyID
	}
	claims[key], claims["company_id"], claims["company_name"] = in.RecordID.String(), company.String(), f.companyName(company)
	return claims, nil
}

// Redeliver posts again, copies times, the token of the i-th delivery
// attempt of Deliveries (from 0) to the same URL: a receiver sees the
// same event again, as it would from a sender that retried after an
// answer it did not get.
func (f *Fake) Redeliver(i, copies int) error {
	if copies == 0 {
		copies = 1
	}
	if copies < 0 || copies > 100 {
		return errors.New("copies must be from 1 to 100")
	}
	f.mu.Lock()
	if i < 0 || i >= len(f.deliveries) {
		n := len(f.deliveries)
		f.mu.Unlock()
		return fmt.Errorf("no delivery %d: the log holds %d", i, n)
	}
	d := f.deliveries[i]
	f.mu.Unlock()
	f.dispatch(d.Event, d.Claims, d.Token, []string{d.URL}, copies)
	return nil
}

// DeliveryFault makes event deliveries fail or wait, as Fault does for
// the API.
type DeliveryFault struct {
	// URL limits the fault to one callback URL; "" is every URL.
	URL string
	// Count is how many attempts it affects; 0 is every attempt until
	// ClearDeliveryFaults.
	Count int
	// Drop fails the attempt without sending it, as a network failure
	// would; it is retried as such.
	Drop bool
	// Latency delays the attempt.
	Latency time.Duration
}

type activeDeliveryFault struct {
	DeliveryFault
	left int
}

// InjectDeliveryFault adds a fault on the delivery path.
func (f *Fake) InjectDeliveryFault(df DeliveryFault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deliveryFaults = append(f.deliveryFaults, &activeDeliveryFault{DeliveryFault: df, left: df.Count})
}

// ClearDeliveryFaults removes every fault on the delivery path.
func (f *Fake) ClearDeliveryFaults() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deliveryFaults = nil
}

// deliveryFault takes the first fault that applies to an attempt to url.
func (f *Fake) deliveryFault(url string) (DeliveryFault, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, df := range f.deliveryFaults {
		if df.URL != "" && df.URL != url {
			continue
		}
		if df.Count > 0 {
			df.left--
			if df.left <= 0 {
				f.deliveryFaults = append(f.deliveryFaults[:i:i], f.deliveryFaults[i+1:]...)
			}
		}
		return df.DeliveryFault, true
	}
	return DeliveryFault{}, false
}

// errDropped is the failure of an attempt a delivery fault dropped.
var errDropped = errors.New("dropped by a delivery fault")
