package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// PaymentMethodsClient stores, changes and removes the account's cards.
type PaymentMethodsClient service

var (
	routePaymentMethodsList   = declare(http.MethodGet, "/payment-methods", "PaymentMethods.List")
	routePaymentMethodsCreate = declareOnce(http.MethodPost, "/payment-methods", "PaymentMethods.Create",
		"PaymentMethods.List shows whether the card was stored (match its last four digits and expiry)")
	routePaymentMethodsUpdate = declareOnce(http.MethodPatch, "/payment-methods/{id}", "PaymentMethods.Update",
		"PaymentMethods.List shows the card's details")
	routePaymentMethodsDelete = declareOnce(http.MethodDelete, "/payment-methods/{id}", "PaymentMethods.Delete",
		"PaymentMethods.List shows whether the card is still there")
)

// PaymentMethod is a stored card (never its number or CVC).
type PaymentMethod struct {
	ID             uuid.UUID       `json:"id"` // the payment token of checkout and invoice payment
	FirstName      string          `json:"first_name"`
	LastName       string          `json:"last_name"`
	Brand          string          `json:"brand"`     // the card's network, as "visa"
	Last4          string          `json:"last4"`     // the number's last four digits
	ExpMonth       int             `json:"exp_month"` // 1 to 12
	ExpYear        int             `json:"exp_year"`  // four digits
	IsPrepaid      bool            `json:"is_prepaid"`
	CreatedAt      time.Time       `json:"created_at"`
	BillingAddress BillingAddress  `json:"billing_address"`
	Raw            json.RawMessage `json:"-"` // the record exactly as the API sent it
}

// BillingAddress is the address of a card's holder.
type BillingAddress struct {
	Address1 string `json:"address1"`
	Address2 string `json:"address2"`
	City     string `json:"city"`
	State    string `json:"state"`
	Zip      string `json:"zip"`
	Country  string `json:"country"`
}

// UnmarshalJSON reads a card as the API writes it, into Raw too.
func (m *PaymentMethod) UnmarshalJSON(data []byte) error {
	type fields PaymentMethod
	w := struct {
		*fields
		ExpMonth  flexInt `json:"exp_month"`
		ExpYear   flexInt `json:"exp_year"`
		CreatedAt Time    `json:"created_at"`
	}{fields: (*fields)(m)}
	*m = PaymentMethod{}
	err := readRecord(data, &w)
	m.ExpMonth, m.ExpYear, m.CreatedAt, m.Raw = int(w.ExpMonth), int(w.ExpYear), w.CreatedAt.Time, keepRaw(data)
	return err
}

// storedCard returns the card an answer holds, or nil: a status object
// ({"status_code": 200, "success": true}) read as a card has no id.
func storedCard(cards answerList[PaymentMethod], err error) (*PaymentMethod, error) {
	if err != nil || len(cards) == 0 || cards[0].ID == uuid.Nil {
		return nil, err
	}
	return &cards[0], nil
}

// Card is a card to store or a stored one's new details: Number (spaces
// allowed), ExpMonth, ExpYear (four digits) and CVC are required.
type Card struct {
	Number              Secret
	ExpMonth, ExpYear   int
	CVC                 Secret
	FirstName, LastName string
	BillingAddress      BillingAddress
}

func (p *Card) validate() error {
	digits, cvc := strings.ReplaceAll(p.Number.Reveal(), " ", ""), p.CVC.Reveal()
	return firstErr(checkRequired("number", digits),
		checkThat(len(digits) >= 12 && len(digits) <= 19 && strings.Trim(digits, "0123456789") == "", "number", "must be 12 to 19 digits"),
		checkThat(p.ExpMonth >= 1 && p.ExpMonth <= 12, "exp_month", fmt.Sprintf("must be 1 to 12, got %d", p.ExpMonth)),
		checkThat(p.ExpYear >= 1000 && p.ExpYear <= 9999, "exp_year", fmt.Sprintf("must have four digits, got %d", p.ExpYear)),
		checkThat(len(cvc) >= 3 && len(cvc) <= 4 && strings.Trim(cvc, "0123456789") == "", "cvc", "must be 3 or 4 digits"))
}

// cardBody is a Card as the API takes it: the month and year as strings
// of digits ("05", "2028").
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

// List returns the account's stored cards. GET /payment-methods.
func (s *PaymentMethodsClient) List(ctx context.Context) ([]PaymentMethod, error) {
	var cards []PaymentMethod
	if err := s.c.json(ctx, routePaymentMethodsList.at(), nil, nil, &cards); err != nil {
		return nil, err
	}
	return cards, nil
}

// Create stores a card and returns it, or nil when the answer does not hold
// it. Sent at most once (see the package doc). POST /payment-methods.
func (s *PaymentMethodsClient) Create(ctx context.Context, card *Card) (*PaymentMethod, error) {
	card = orZero(card)
	if err := card.validate(); err != nil {
		return nil, err
	}
	var list answerList[PaymentMethod]
	err := s.c.json(ctx, routePaymentMethodsCreate.at(), nil, card.body(), &list)
	return storedCard(list, err)
}

// Update replaces all details of the card id and returns it as Create does.
// Sent at most once (see the package doc). PATCH /payment-methods/:id.
func (s *PaymentMethodsClient) Update(ctx context.Context, id uuid.UUID, card *Card) (*PaymentMethod, error) {
	card = orZero(card)
	if err := firstErr(checkID("id", id), card.validate()); err != nil {
		return nil, err
	}
	var list answerList[PaymentMethod]
	err := s.c.json(ctx, routePaymentMethodsUpdate.at(id.String()), nil, card.body(), &list)
	return storedCard(list, err)
}

// Delete removes the stored card id. Sent at most once (see the package
// doc). DELETE /payment-methods/:id.
func (s *PaymentMethodsClient) Delete(ctx context.Context, id uuid.UUID) error {
	if err := checkID("id", id); err != nil {
		return err
	}
	return s.c.json(ctx, routePaymentMethodsDelete.at(id.String()), nil, nil, nil)
}

// Store stores a card as Create does and returns the new card with its
// last four digits and expiry (answered or listed). GET, POST /payment-methods.
func (s *PaymentMethodsClient) Store(ctx context.Context, card *Card) (*PaymentMethod, error) {
	if card = orZero(card); ctx == nil || card.validate() != nil {
		return s.Create(ctx, card) // refused before sending
	}
	before, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	answer, err := s.Create(ctx, card)
	if err != nil {
		return nil, err
	}
	digits := strings.ReplaceAll(card.Number.Reveal(), " ", "")
	fits := func(m PaymentMethod) bool {
		return m.Last4 == digits[len(digits)-4:] && m.ExpMonth == card.ExpMonth && m.ExpYear == card.ExpYear
	}
	if answer != nil && !slices.Contains(ids(before, cardID), answer.ID) && fits(*answer) {
		return answer, nil
	}
	after, err := s.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("acctadmin: the card was stored; listing the cards to find it: %w", err)
	}
	return made(before, after, cardID, fits, "new card of those digits and expiry in the cards listed after storing")
}

// secretValues lists the values an answer must not echo: the number, with
// and without spaces, and the CVC, in its body field and alone.
func (b *cardBody) secretValues() []string {
	return []string{b.Number, strings.ReplaceAll(b.Number, " ", ""), `"cvc":"` + b.CVC + `"`, b.CVC}
}

// Format prints the card as fmt prints a struct, Number and CVC redacted.
func (p Card) Format(f fmt.State, verb rune) { formatFields(f, verb, p, "acctadmin.Card") }
