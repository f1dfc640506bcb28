package acctadmintest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// DeclinedCardNumber is a test card that is stored like any other and
// declined when it is charged (at checkout or when paying invoices): the
// charge answers 402 and changes nothing. It is the number payment
// processors publish for a generic decline.
const DeclinedCardNumber = "4000000000000002"

// PaymentMethod is a stored card. Like a payment processor, the fake keeps
// only what identifies the card to its owner: never its number or CVC.
type PaymentMethod struct {
	ID        uuid.UUID
	Brand     string // visa, mastercard, amex, discover or unknown
	Last4     string
	ExpMonth  int
	ExpYear   int
	FirstName string
	LastName  string
	Billing   BillingAddress
	CreatedAt time.Time
	// Declines says the card is declined when charged.
	Declines bool
}

// BillingAddress is a card's billing address, in the shape the payment
// methods route uses.
type BillingAddress struct {
	Address1, Address2, City, State, Zip, Country string
}

type billingAddressWire struct {
	Address1 *string `json:"address1"`
	Address2 *string `json:"address2"`
	City     *string `json:"city"`
	State    *string `json:"state"`
	Zip      *string `json:"zip"`
	Country  *string `json:"country"`
}

type paymentMethodWire struct {
	ID             uuid.UUID          `json:"id"`
	FirstName      string             `json:"first_name"`
	LastName       string             `json:"last_name"`
	Brand          string             `json:"brand"`
	Last4          string             `json:"last4"`
	ExpMonth       int                `json:"exp_month"`
	ExpYear        int                `json:"exp_year"`
	IsPrepaid      bool               `json:"is_prepaid"`
	CreatedAt      string             `json:"created_at"`
	BillingAddress billingAddressWire `json:"billing_address"`
}

func (wf wireFormat) paymentMethod(p *PaymentMethod) paymentMethodWire {
	b := p.Billing
	return paymentMethodWire{
		ID: p.ID, FirstName: p.FirstName, LastName: p.LastName, Brand: p.Brand, Last4: p.Last4,
		ExpMonth: p.ExpMonth, ExpYear: p.ExpYear, CreatedAt: wf.time(p.CreatedAt),
		BillingAddress: billingAddressWire{
			Address1: &b.Address1, Address2: &b.Address2, City: &b.City, State: &b.State, Zip: &b.Zip, Country: &b.Country,
		},
	}
}

// cardBody is what POST and PATCH /payment-methods send.
type cardBody struct {
	Number         string          `json:"number"`
	ExpMonth       json.RawMessage `json:"exp_month"`
	ExpYear        json.RawMessage `json:"exp_year"`
	CVC            string          `json:"cvc"`
	FirstName      *string         `json:"first_name"`
	LastName       *string         `json:"last_name"`
	BillingAddress *struct {
		Address1, Address2, City, State, Zip, Country *string
	} `json:"billing_address"`
}

// intField reads a number sent as a JSON integer or as digits in a string
// ("05").
func intField(raw json.RawMessage) (int, bool) {
	s := strings.Trim(string(raw), `"`)
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// cardBrand tells the brand from the number's prefix.
func cardBrand(n string) string {
	switch {
	case strings.HasPrefix(n, "4"):
		return "visa"
	case strings.HasPrefix(n, "34"), strings.HasPrefix(n, "37"):
		return "amex"
	case strings.HasPrefix(n, "6011"), strings.HasPrefix(n, "65"):
		return "discover"
	case len(n) >= 2 && n[0] == '5' && n[1] >= '1' && n[1] <= '5', len(n) >= 4 && n[:4] >= "2221" && n[:4] <= "2720":
		return "mastercard"
	}
	return "unknown"
}

// luhn reports whether a string of digits passes the Luhn check.
func luhn(n string) bool {
	sum := 0
	for i := range len(n) {
		d := int(n[len(n)-1-i] - '0')
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// card reads a card body: every field error at once, none of them
// quoting the number or the CVC.
func (f *Fake) card(body *cardBody) (PaymentMethod, error) {
	var errs []fieldError
	num := strings.ReplaceAll(body.Number, " ", "")
	if len(num) < 12 || len(num) > 19 || strings.Trim(num, "0123456789") != "" || !luhn(num) {
		errs = append(errs, fieldError{Field: "number", Message: "is not a valid card number"})
	}
	month, ok := intField(body.ExpMonth)
	if !ok || month < 1 || month > 12 {
		errs = append(errs, fieldError{Field: "exp_month", Message: "must be a month from 1 to 12 (a number or digits)"})
	}
	year, ok := intField(body.ExpYear)
	if !ok || year < 1000 || year > 9999 {
		errs = append(errs, fieldError{Field: "exp_year", Message: "must be a four-digit year (a number or digits)"})
	} else if month >= 1 && month <= 12 {
		now := f.now()
		if year < now.Year() || year == now.Year() && month < int(now.Month()) {
			errs = append(errs, fieldError{Field: "exp_year", Message: "the card has expired"})
		}
	}
	if len(body.CVC) < 3 || len(body.CVC) > 4 || strings.Trim(body.CVC, "0123456789") != "" {
		errs = append(errs, fieldError{Field: "cvc", Message: "must be 3 or 4 digits"})
	}
	if len(errs) > 0 {
		return PaymentMethod{}, invalidf(errs, "the card was refused: %s", errs[0].Field+" "+errs[0].Message)
	}
	pm := PaymentMethod{
		Brand: cardBrand(num), Last4: num[len(num)-4:], ExpMonth: month, ExpYear: year,
		FirstName: deref(body.FirstName), LastName: deref(body.LastName), Declines: num == DeclinedCardNumber,
	}
	if b := body.BillingAddress; b != nil {
		pm.Billing = BillingAddress{deref(b.Address1), deref(b.Address2), deref(b.City), deref(b.State), deref(b.Zip), deref(b.Country)}
	}
	return pm, nil
}

// GET /payment-methods: every stored card, oldest first.
func listPaymentMethods(c *call) error {
	f := c.f
	wf := f.wire(false)
	out, _ := locked(f, func() ([]paymentMethodWire, error) {
		return mapRows(f.st.payments.rows, wf.paymentMethod), nil
	})
	return c.ok(out, answer{})
}

// cardWritten is the result of every write of a card (stored, changed,
// removed), as the real server answers it: the card is not in it, and
// clients find it by listing (by its last four digits and expiry).
type cardWritten struct {
	StatusCode int  `json:"status_code"`
	Success    bool `json:"success"`
}

// writtenCard is the answer of a card written.
func (c *call) writtenCard() error {
	return c.ok(cardWritten{StatusCode: http.StatusOK, Success: true}, answer{})
}

// POST /payment-methods: stores a card; the answer does not hold it.
func createPaymentMethod(c *call) error {
	var body cardBody
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	f := c.f
	pm, err := f.card(&body)
	if err != nil {
		return err
	}
	_, _ = locked(f, func() (struct{}, error) {
		pm.ID = f.newID()
		pm.CreatedAt = f.now()
		f.st.payments.insert(&pm)
		f.recordWrite(c, []uuid.UUID{pm.ID})
		return struct{}{}, nil
	})
	return c.writtenCard()
}

// PATCH /payment-methods/:id: replaces the card's details; the answer
// does not hold them.
func updatePaymentMethod(c *call) error {
	id, err := c.pathID("payment method")
	if err != nil {
		return err
	}
	var body cardBody
	if err := c.decodeBody(&body); err != nil {
		return err
	}
	f := c.f
	pm, err := f.card(&body)
	if err != nil {
		return err
	}
	_, err = locked(f, func() (struct{}, error) {
		old := f.st.payments.get(id)
		if old == nil {
			return struct{}{}, notFound("payment method")
		}
		pm.ID, pm.CreatedAt = old.ID, old.CreatedAt
		*old = pm
		f.recordWrite(c, nil)
		return struct{}{}, nil
	})
	if err != nil {
		return err
	}
	return c.writtenCard()
}

// DELETE /payment-methods/:id: removes the card.
func deletePaymentMethod(c *call) error {
	id, err := c.pathID("payment method")
	if err != nil {
		return err
	}
	f := c.f
	_, err = locked(f, func() (struct{}, error) {
		if !f.st.payments.remove(id) {
			return struct{}{}, notFound("payment method")
		}
		f.recordWrite(c, nil)
		return struct{}{}, nil
	})
	if err != nil {
		return err
	}
	return c.writtenCard()
}

// paymentToken resolves the payment_token of a charge: a stored card that
// is not declined; f.mu must be held.
func (f *Fake) paymentToken(token string) (*PaymentMethod, error) {
	if token == "" {
		return nil, invalid("payment_token", "is required")
	}
	id, err := parseUUID("payment_token", token)
	if err != nil {
		return nil, err
	}
	pm := f.st.payments.get(id)
	if pm == nil {
		return nil, invalid("payment_token", "names no stored payment method")
	}
	if pm.Declines {
		return nil, &apiError{status: http.StatusPaymentRequired, msg: "the card ending " + pm.Last4 + " was declined",
			fields: []fieldError{{Field: "payment_token", Message: "the card was declined"}}}
	}
	return pm, nil
}

// cents reads decimal text ("149.00") as a number of cents.
func cents(s string) int64 {
	whole, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(whole, "-")
	w, _ := strconv.ParseInt(strings.TrimPrefix(whole, "-"), 10, 64)
	frac = (frac + "00")[:2]
	fr, _ := strconv.ParseInt(frac, 10, 64)
	n := w*100 + fr
	if neg {
		return -n
	}
	return n
}

// decimal writes cents as decimal text with two places.
func decimal(n int64) string {
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	return sign + strconv.FormatInt(n/100, 10) + "." + strconv.FormatInt(n%100/10, 10) + strconv.FormatInt(n%10, 10)
}

// PaymentMethods returns the stored cards, oldest first: what a payment
// processor would keep of them.
func (f *Fake) PaymentMethods() []PaymentMethod {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.payments.copies()
}
