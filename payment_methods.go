package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
)

// PaymentMethodsClient stores, changes and removes the account's cards.
// Card numbers and CVCs are Secrets: they are sent, and never shown.
type PaymentMethodsClient service

// The routes of payment methods.
var (
	routePaymentMethodsList   = declare(http.MethodGet, "/payment-methods", "PaymentMethods.List")
	routePaymentMethodsCreate = declareOnce(http.MethodPost, "/payment-methods", "PaymentMethods.Create",
		"PaymentMethods.List shows whether the card was stored (match its last four digits and expiry)")
	routePaymentMethodsUpdate = declareOnce(http.MethodPatch, "/payment-methods/{id}", "PaymentMethods.Update",
		"PaymentMethods.List shows the card's details")
	routePaymentMethodsDelete = declareOnce(http.MethodDelete, "/payment-methods/{id}", "PaymentMethods.Delete",
		"PaymentMethods.List shows whether the card is still there")
)

// PaymentMethod is a stored card. The API never sends its number or CVC;
// the shape is known from the provider's C# model, and the whole record is
// kept in Raw.
type PaymentMethod struct {
	// ID is what checkout and invoice payment take as the payment token.
	ID        uuid.UUID `json:"id"`
	FirstName string    `json:"first_name"`
	LastName  string    `json:"last_name"`
	// Brand is the card's network, as "visa".
	Brand string `json:"brand"`
	// Last4 is the last four digits of the number.
	Last4 string `json:"last4"`
	// ExpMonth (1 to 12) and ExpYear (four digits) are the expiry.
	ExpMonth       int            `json:"exp_month"`
	ExpYear        int            `json:"exp_year"`
	IsPrepaid      bool           `json:"is_prepaid"`
	CreatedAt      time.Time      `json:"created_at"`
	BillingAddress BillingAddress `json:"billing_address"`
	// Raw is the record exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// BillingAddress is the address of a card's holder, in the shape the
// payment-method routes use (which differs from a website's Address).
type BillingAddress struct {
	Address1 string `json:"address1"`
	Address2 string `json:"address2"`
	City     string `json:"city"`
	State    string `json:"state"`
	Zip      string `json:"zip"`
	Country  string `json:"country"`
}

// UnmarshalJSON decodes the known fields and keeps the whole record in Raw.
func (m *PaymentMethod) UnmarshalJSON(data []byte) error {
	return decodeRecord[paymentMethodWire](data, m, &m.Raw)
}

type plainPaymentMethod PaymentMethod

type paymentMethodWire struct {
	plainPaymentMethod
	ExpMonth       flexInt            `json:"exp_month"`
	ExpYear        flexInt            `json:"exp_year"`
	CreatedAt      Time               `json:"created_at"`
	BillingAddress billingAddressWire `json:"billing_address"`
}

// billingAddressWire reads a billing address whose lines may be null.
type billingAddressWire struct {
	Address1, Address2, City, State, Zip, Country *string
}

func (w paymentMethodWire) record() PaymentMethod {
	m := PaymentMethod(w.plainPaymentMethod)
	m.ExpMonth, m.ExpYear = int(w.ExpMonth), int(w.ExpYear)
	m.CreatedAt = w.CreatedAt.Time
	a := w.BillingAddress
	m.BillingAddress = BillingAddress{deref(a.Address1), deref(a.Address2), deref(a.City), deref(a.State), deref(a.Zip), deref(a.Country)}
	return m
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Card is a card to store or the new details of a stored one. Number,
// ExpMonth, ExpYear and CVC are required. Number and CVC are Secrets:
// printing or logging a Card shows neither.
type Card struct {
	// Number is the full card number; spaces are allowed.
	Number Secret
	// ExpMonth is the expiry month, 1 to 12; ExpYear the four-digit year.
	ExpMonth int
	ExpYear  int
	// CVC is the three- or four-digit security code.
	CVC            Secret
	FirstName      string
	LastName       string
	BillingAddress BillingAddress
}

// cardFields is a Card without its methods, for Format.
type cardFields Card

// Format prints the card as fmt prints a struct, with Number and CVC
// redacted, under every verb; so do a []*Card and a map of them.
func (p Card) Format(f fmt.State, verb rune) { formatFields(f, verb, cardFields(p), "acctadmin.Card") }

func (p *Card) validate() error {
	digits := strings.ReplaceAll(p.Number.Reveal(), " ", "")
	switch {
	case digits == "":
		return invalid("number", "is required")
	case len(digits) < 12 || len(digits) > 19 || strings.Trim(digits, "0123456789") != "":
		return invalid("number", "must be 12 to 19 digits")
	case p.ExpMonth < 1 || p.ExpMonth > 12:
		return invalid("exp_month", "must be 1 to 12, got %d", p.ExpMonth)
	case p.ExpYear < 1000 || p.ExpYear > 9999:
		return invalid("exp_year", "must have four digits, got %d", p.ExpYear)
	}
	cvc := p.CVC.Reveal()
	if len(cvc) < 3 || len(cvc) > 4 || strings.Trim(cvc, "0123456789") != "" {
		return invalid("cvc", "must be 3 or 4 digits")
	}
	return nil
}

// cardBody is a Card as the API takes it: the month and year as digits
// in strings ("05", "2028"), as every example client sends them.
type cardBody struct {
	Number         string         `json:"number"`
	ExpMonth       string         `json:"exp_month"`
	ExpYear        string         `json:"exp_year"`
	CVC            string         `json:"cvc"`
	FirstName      string         `json:"first_name"`
	LastName       string         `json:"last_name"`
	BillingAddress BillingAddress `json:"billing_address"`
}

func (p *Card) body() *cardBody {
	return &cardBody{
		Number: p.Number.Reveal(), CVC: p.CVC.Reveal(),
		ExpMonth: fmt.Sprintf("%02d", p.ExpMonth), ExpYear: fmt.Sprintf("%04d", p.ExpYear),
		FirstName: p.FirstName, LastName: p.LastName, BillingAddress: p.BillingAddress,
	}
}

// secretValues lists the values an answer must not echo: the number as
// sent and as digits alone, and the CVC, as the body carried it and alone
// (too short to look for inside other text, it is taken out where it
// stands alone: see redactor.short).
func (b *cardBody) secretValues() []string {
	return []string{b.Number, strings.ReplaceAll(b.Number, " ", ""), `"cvc":"` + b.CVC + `"`, b.CVC}
}

// List returns the account's stored cards. GET /payment-methods.
func (s *PaymentMethodsClient) List(ctx context.Context) ([]PaymentMethod, error) {
	return call[[]PaymentMethod](ctx, s.c, routePaymentMethodsList.at(), nil, nil)
}

// Create stores a card and returns it when the API's answer holds it (nil
// otherwise: the provider's clients find a new card with List, by its
// last four digits and expiry). It is sent at most once: a failure after
// the request may have arrived is ErrOutcomeUnknown, and List shows
// whether the card was stored. POST /payment-methods.
func (s *PaymentMethodsClient) Create(ctx context.Context, card *Card) (*PaymentMethod, error) {
	if card == nil {
		card = &Card{}
	}
	if err := card.validate(); err != nil {
		return nil, err
	}
	return firstRecord(call[recordsOrOne[PaymentMethod]](ctx, s.c, routePaymentMethodsCreate.at(), nil, card.body()))
}

// Update replaces the details of the stored card id with card (every
// field, as the API's clients send them) and returns the card when the
// answer holds it. It is sent at most once: a failure after the request
// may have arrived is ErrOutcomeUnknown, and List shows the card's
// details. PATCH /payment-methods/:id.
func (s *PaymentMethodsClient) Update(ctx context.Context, id uuid.UUID, card *Card) (*PaymentMethod, error) {
	if card == nil {
		card = &Card{}
	}
	if err := firstErr(checkID("id", id), card.validate()); err != nil {
		return nil, err
	}
	return firstRecord(call[recordsOrOne[PaymentMethod]](ctx, s.c, routePaymentMethodsUpdate.at(id.String()), nil, card.body()))
}

// Delete removes the stored card id. It is sent at most once, as it
// changes what the account pays with: a failure after the request may
// have arrived is ErrOutcomeUnknown, and List shows whether the card is
// still there. DELETE /payment-methods/:id.
func (s *PaymentMethodsClient) Delete(ctx context.Context, id uuid.UUID) error {
	if err := checkID("id", id); err != nil {
		return err
	}
	_, err := call[ignored](ctx, s.c, routePaymentMethodsDelete.at(id.String()), nil, nil)
	return err
}

// firstRecord returns the first of the records an answer held, or nil.
func firstRecord[R any, L ~[]R](list L, err error) (*R, error) {
	if err != nil || len(list) == 0 {
		return nil, err
	}
	return &list[0], nil
}
