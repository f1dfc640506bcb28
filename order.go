package acctadmin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// The order of a filing as one call (Client.Order), and the calls that
// return what they made: the added cart item, the stored card, the order
// items of a checkout. The API's answers to those writes may hold the
// record, the whole list it joined, or nothing; these calls find the
// record by listing before and after the write when the answer does not
// hold it, match it exactly, and never guess: no fit is ErrNoMatch, two
// are ErrAmbiguous. Each write is still one at-most-once request of its
// resource's method; no route is declared here.

// filingWords are the names a filing goes by, in groups of synonyms: the
// catalogue names the EIN "tax id", say. Find matches any word of the
// group of the word it is given.
var filingWords = [][]string{
	{"ein", "tax id", "employer identification number", "federal tax id", "fein", "ss 4"},
	{"annual report", "annual registration", "annual statement", "annual list"},
	{"formation", "articles of organization", "articles of incorporation", "certificate of formation", "certificate of organization"},
	{"good standing", "certificate of good standing", "certificate of existence", "certificate of status", "certificate of fact"},
	{"amendment", "articles of amendment", "certificate of amendment"},
	{"dissolution", "articles of dissolution", "certificate of dissolution", "certificate of cancellation"},
	{"boi", "beneficial ownership information", "beneficial ownership report", "boir"},
	{"dba", "doing business as", "assumed name", "fictitious name", "trade name"},
	{"foreign qualification", "certificate of authority", "foreign registration"},
}

// normalWords lowercases s and keeps its letters and digits, one space
// between words: "Tax-ID" and "tax id" are the same.
func normalWords(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	return strings.Join(f, " ")
}

// synonyms returns what and the other words of its group, normalised.
func synonyms(what string) []string {
	w := normalWords(what)
	for _, g := range filingWords {
		if slices.Contains(g, w) {
			return g
		}
	}
	return []string{w}
}

// matchFiling picks the product that files what: first by its filing
// name (the API's simplified name), then by its name holding one of the
// words whole ("Tax id filing service" holds "tax id").
func matchFiling(products []FilingProduct, what string) (*FilingProduct, error) {
	words := synonyms(what)
	if words[0] == "" {
		return nil, invalid("what", "is required")
	}
	byFilingName := func(p FilingProduct) bool { return slices.Contains(words, normalWords(p.FilingName)) }
	byName := func(p FilingProduct) bool {
		name := " " + normalWords(p.Name) + " "
		return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(name, " "+w+" ") })
	}
	for _, fits := range []func(FilingProduct) bool{byFilingName, byName} {
		if p, err := only(products, fits, "filing product "+fmt.Sprintf("%q", what)); !errors.Is(err, ErrNoMatch) {
			return p, err
		}
	}
	return nil, fmt.Errorf("%w: no filing product is %q (nor %s)", ErrNoMatch, what, strings.Join(words, ", "))
}

// only returns the one element of list that fits; what names it in
// errors.
func only[T any](list []T, fits func(T) bool, what string) (*T, error) {
	var found []int
	for i := range list {
		if fits(list[i]) {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%w: no %s", ErrNoMatch, what)
	case 1:
		return &list[found[0]], nil
	}
	return nil, fmt.Errorf("%w: %d of %s", ErrAmbiguous, len(found), what)
}

// Find returns the filing product offered to the company p.CompanyID in
// p.Jurisdiction that files what: "EIN", "annual report", "good
// standing"… Words are matched whatever their case and punctuation, with
// their synonyms ("EIN" is the catalogue's "tax id"), against the
// products' filing names first, then against their names. No product is
// ErrNoMatch, two are ErrAmbiguous. GET /filing-products/offerings.
func (s *FilingProductsClient) Find(ctx context.Context, p *OfferingParams, what string) (*FilingProduct, error) {
	products, err := s.Offerings(ctx, p)
	if err != nil {
		return nil, err
	}
	return matchFiling(products, what)
}

// made returns the one record of after that is not in before and fits:
// the record a write made, found by comparing listings.
func made[T any](before, after []T, id func(T) uuid.UUID, fits func(T) bool, what string) (*T, error) {
	known := make(map[uuid.UUID]bool, len(before))
	for _, r := range before {
		known[id(r)] = true
	}
	return only(after, func(r T) bool { return id(r) != uuid.Nil && !known[id(r)] && fits(r) }, what)
}

func cartItemID(it CartItem) uuid.UUID   { return it.ID }
func cardID(m PaymentMethod) uuid.UUID   { return m.ID }
func orderItemID(it OrderItem) uuid.UUID { return it.ID }
func invoiceID(inv Invoice) uuid.UUID    { return inv.ID }
func ids[T any](list []T, id func(T) uuid.UUID) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(list))
	for _, r := range list {
		out = append(out, id(r))
	}
	return out
}

// check is what Add and AddItem check before sending.
func (p *CartAddParams) check() error {
	return firstErr(checkNotNegative("quantity", p.Quantity), checkID("company_id", p.CompanyID),
		checkID("product_id", p.ProductID), checkFormData("form_data", p.FormData, false))
}

// check is what Checkout and CheckoutOrder check before sending.
func (p *CheckoutParams) check() error {
	return firstErr(checkID("payment_token", p.PaymentMethodID),
		checkSome("item_ids", len(p.ItemIDs) > 0, "company_ids", len(p.CompanyIDs) > 0),
		checkIDs("item_ids", p.ItemIDs), checkIDs("company_ids", p.CompanyIDs))
}

// AddItem puts a product in a company's cart, as Add does, and returns
// the item added. The answer may hold that item, the whole cart, or
// nothing, so AddItem lists the company's cart before adding and finds
// the new item of that product (and option) in the answer or, when the
// answer does not hold exactly one, in the listing after: the item was
// added but no new one is listed is ErrNoMatch, two new ones are
// ErrAmbiguous. A failed listing before adding sends nothing. The add is
// sent at most once; after ErrOutcomeUnknown, ShoppingCart.List shows
// whether the item was added. GET and POST /shopping-cart.
func (s *ShoppingCartClient) AddItem(ctx context.Context, p *CartAddParams) (*CartItem, error) {
	if p = orZero(p); ctx == nil || p.check() != nil {
		_, err := s.Add(ctx, p) // refused before sending
		return nil, err
	}
	cart := &CartListParams{CompanyIDs: []uuid.UUID{p.CompanyID}}
	before, err := s.List(ctx, cart)
	if err != nil {
		return nil, err
	}
	answer, err := s.Add(ctx, p)
	if err != nil {
		return nil, err
	}
	fits := func(it CartItem) bool {
		return it.CompanyID == p.CompanyID && it.ProductID == p.ProductID &&
			(p.ProductOptionID == uuid.Nil || it.ProductOptionID == p.ProductOptionID)
	}
	what := "new cart item of product " + p.ProductID.String()
	if it, err := made(before, answer, cartItemID, fits, what); err == nil {
		return it, nil
	}
	after, err := s.List(ctx, cart)
	if err != nil {
		return nil, fmt.Errorf("acctadmin: the item was added; listing the cart to find it: %w", err)
	}
	return made(before, after, cartItemID, fits, what+" in the cart listed after adding")
}

// Store stores a card, as Create does, and returns the stored card. The
// real API answers without it ({status_code, success}), so Store lists
// the cards before storing and finds the new one with the card's last
// four digits and expiry in the answer or in the listing after: the card
// was stored but no new one is listed is ErrNoMatch, two are
// ErrAmbiguous. A failed listing before storing sends nothing. The card is
// sent at most once; after ErrOutcomeUnknown, PaymentMethods.List shows
// whether it was stored. GET and POST /payment-methods.
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

// CheckoutOrder checks out as Checkout does, and fills the Checkout's
// OrderItems with the order items it made that wait for form data. The
// answer holds invoice ids, not order items, and the API lists only the
// order items that wait, so CheckoutOrder lists those of the account
// before checking out and again after: the new ones are the checkout's.
// A failed listing before sends nothing; one after returns the Checkout
// (the card was charged) with the error. The checkout is sent at most
// once; after ErrOutcomeUnknown, Invoices.List shows whether invoices were
// made, and ShoppingCart.List whether the items left the cart (Client.Order
// finds out for itself). GET /order-items/requiring-attention, POST
// /shopping-cart/checkout.
func (s *ShoppingCartClient) CheckoutOrder(ctx context.Context, p *CheckoutParams) (*Checkout, error) {
	if p = orZero(p); ctx == nil || p.check() != nil {
		return s.Checkout(ctx, p) // refused before sending
	}
	before, err := s.c.OrderItems.ListRequiringAttention(ctx, nil)
	if err != nil {
		return nil, err
	}
	out, err := s.Checkout(ctx, p)
	if err != nil {
		return nil, err
	}
	after, err := s.c.OrderItems.ListRequiringAttention(ctx, nil)
	if err != nil {
		return out, fmt.Errorf("acctadmin: checked out; listing the order items it made: %w", err)
	}
	out.OrderItems = newOrderItems(before, after)
	return out, nil
}

// newOrderItems returns the order items of after that are not in
// before: those a checkout made.
func newOrderItems(before, after []OrderItem) []OrderItem {
	known := ids(before, orderItemID)
	var made []OrderItem
	for _, it := range after {
		if it.ID != uuid.Nil && !slices.Contains(known, it.ID) {
			made = append(made, it)
		}
	}
	return made
}

// OrderRequest is a filing to order with Client.Order. CompanyID,
// Jurisdiction, one of Filing and ProductID, and one of PaymentMethodID
// and Card are required. It prints, logs and marshals with the card's
// number and CVC and every value of FormData redacted.
type OrderRequest struct {
	CompanyID uuid.UUID
	// Jurisdiction is where the company files ("WY" or "Wyoming"): the
	// offerings and filing methods are those of that jurisdiction.
	Jurisdiction string
	// Filing is what the filing files, as FilingProducts.Find takes it
	// ("EIN", "annual report"); ProductID names the product instead.
	Filing    string
	ProductID uuid.UUID
	// FilingMethodID is the filing method; Method names it instead
	// ("Standard"). With neither, the product must have one method only.
	FilingMethodID uuid.UUID
	Method         string
	// PaymentMethodID is the stored card to charge; Card is a card to
	// store first (PaymentMethods.Store) and charge: stored anew by every
	// Order given it (pass the result's Card.ID the next time).
	PaymentMethodID uuid.UUID
	Card            *Card
	// FormData answers the form the order item waits for (see
	// FilingMethods.Schemas); nil leaves the item waiting. Order checks it
	// against the filing method's schema before anything is put in the
	// cart. It may hold personal data: Order sends it in that one request
	// and redacts its values from every error, log line and hook.
	FormData any
	// AllowDuplicate orders even when the company has an order item of
	// the product that is not finished; without it, Order refuses such an
	// order with a *DuplicateOrderError before anything moves money.
	AllowDuplicate bool
}

// OrderResult is what Client.Order did, step by step; the fields of the
// steps it did not reach are zero.
type OrderResult struct {
	Product *FilingProduct
	Method  *FilingMethod
	// SchemaChecked is true when FormData passed the filing method's
	// schema before anything was put in the cart. When it is false,
	// SchemaNote says why (no FormData, no schema listed, the schema could
	// not be read or is not one Order can use), and only the API checks
	// the form, once the card is charged.
	SchemaChecked bool
	SchemaNote    string
	Card          *PaymentMethod // the card charged
	CartItem      *CartItem      // the item put in the cart
	// Checkout is the checkout's answer, with the order items it made.
	// Non-nil, the card was charged: do not order again, whatever error
	// comes with it. Nil beside a *CheckoutOutcomeError, the error's
	// Verdict says.
	Checkout *Checkout
	// OrderItem is the order item of the filing: as SubmitFormData
	// answered it when FormData was given, else as it waits for its form;
	// nil when the filing needs no form.
	OrderItem *OrderItem
}

// ChargeVerdict is what Client.Order found out about a checkout that
// failed: whether the card was charged.
type ChargeVerdict string

// The verdicts.
const (
	// Charged: the checkout's answer was lost, and the listings show it
	// took effect: new invoices of the company, and the item left the
	// cart. Do not order again.
	Charged ChargeVerdict = "charged"
	// NotCharged: the answer proves the checkout was not applied (the API
	// refused it, with a 4xx or success false, or the request never
	// left): ordering again is safe.
	NotCharged ChargeVerdict = "not charged"
	// ChargeUnknown: the checkout's answer was lost and the listings do
	// not show it took effect. It may still take effect: do not order
	// again before Invoices.List and ShoppingCart.List show it did not.
	ChargeUnknown ChargeVerdict = "still unknown"
)

// verdict is what the listings show after a checkout whose answer was
// lost, compared with what they showed before: the invoices made since,
// and whether the item is still in the cart. Charged when both show it,
// and never "not charged": a lost checkout may take effect later.
func verdict(newInvoices int, inCart bool) ChargeVerdict {
	if newInvoices > 0 && !inCart {
		return Charged
	}
	return ChargeUnknown
}

// unfinished are the order item statuses of a filing not yet done, as
// the API names them: waiting for its form, or new (being worked on).
var unfinished = []OrderItemStatus{OrderItemRequiringAttention, OrderItemNew}

// Order orders a filing for a company, end to end, with the client's
// public methods, in this order:
//
//  1. the product: found by what it files (FilingProducts.Find), or
//     r.ProductID among the offerings;
//  2. its filing method (FilingMethods.List);
//  3. the form, when r.FormData is given: the method's schema
//     (FilingMethods.Schemas) is read and the form checked against it
//     (required fields, types, patterns, enumerations, lengths); a form
//     it refuses is a *ValidationError that names the field, never its
//     value, and nothing more is sent. When no schema can be read, the
//     result's SchemaNote says so and the order goes on;
//  4. the company's waiting order items (OrderItems.ListRequiringAttention):
//     one of the same product (by id) that is not finished, its status
//     requiring-client-attention or new, refuses the order with a
//     *DuplicateOrderError (ErrDuplicateOrder), and nothing more is sent,
//     unless r.AllowDuplicate;
//  5. the card: r.PaymentMethodID among the stored cards, or r.Card
//     stored (PaymentMethods.Store);
//  6. the cart item (ShoppingCart.AddItem);
//  7. the checkout of that item alone (ShoppingCart.Checkout), after
//     listing the company's invoices and cart;
//  8. the form of the one new order item of the company and product
//     (OrderItems.SubmitFormData), when r.FormData is given.
//
// Every call carries the card's number and CVC and the form's values in
// CallRedact: no error, log line or hook shows them, whatever an answer
// echoes.
//
// The checkout is sent once and never again. A failure before it has
// charged nothing. A failed checkout is a *CheckoutOutcomeError whose
// Verdict says whether the card was charged: NotCharged only when the
// answer proves the checkout was not applied; after a lost answer (a
// timeout, a broken connection, a 5xx), Order lists the invoices and the
// cart again, and says Charged when they show the checkout took effect,
// else ChargeUnknown. Order does not go on to the form then. After the
// checkout, the result's Checkout is set: the card was charged. The
// order item is the one new waiting item of the company and product:
// none while FormData is given, or two, is ErrNoMatch or ErrAmbiguous.
func (c *Client) Order(ctx context.Context, r *OrderRequest) (*OrderResult, error) {
	r = orZero(r)
	if err := r.check(ctx); err != nil {
		return nil, err
	}
	ctx = WithCallOptions(ctx, CallRedact(r.secrets()...))
	res := &OrderResult{}
	var err error
	if res.Product, err = c.orderProduct(ctx, r); err != nil {
		return res, err
	}
	if res.Method, err = c.orderMethod(ctx, r, res.Product); err != nil {
		return res, err
	}
	if err = c.checkOrderForm(ctx, r, res); err != nil {
		return res, err
	}
	waiting, err := c.OrderItems.ListRequiringAttention(ctx, &OrderItemListParams{CompanyIDs: []uuid.UUID{r.CompanyID}})
	if err != nil {
		return res, err
	}
	if err = refuseDuplicate(r, res.Product, waiting); err != nil {
		return res, err
	}
	if res.Card, err = c.orderCard(ctx, r); err != nil {
		return res, err
	}
	if res.CartItem, err = c.ShoppingCart.AddItem(ctx, &CartAddParams{CompanyID: r.CompanyID, ProductID: res.Product.ID,
		ProductOptionID: res.Method.ID, Quantity: 1}); err != nil {
		return res, err
	}
	return res, c.orderCheckout(ctx, r, res, waiting)
}

// check is what Order checks before sending anything.
func (r *OrderRequest) check(ctx context.Context) error {
	if ctx == nil {
		return nilContext()
	}
	err := firstErr(checkID("company_id", r.CompanyID), checkRequired("jurisdiction", r.Jurisdiction),
		checkOne("filing", r.Filing != "", "product_id", r.ProductID != uuid.Nil),
		checkOne("payment_token", r.PaymentMethodID != uuid.Nil, "card", r.Card != nil),
		checkNotBoth("filing_method_id", r.FilingMethodID != uuid.Nil, "method", r.Method != ""),
		checkFormData("form_data", r.FormData, false))
	if err == nil && r.Card != nil {
		err = r.Card.validate()
	}
	return err
}

// secrets are the values every call of the order redacts: the card's
// number and CVC, and the form's values.
func (r *OrderRequest) secrets() []string {
	values := formValues(r.FormData)
	if r.Card != nil {
		values = append(values, r.Card.Number.Reveal(), r.Card.CVC.Reveal())
	}
	return values
}

// orderProduct finds the product of the order.
func (c *Client) orderProduct(ctx context.Context, r *OrderRequest) (*FilingProduct, error) {
	offer := &OfferingParams{CompanyID: r.CompanyID, Jurisdiction: r.Jurisdiction}
	if r.Filing != "" {
		return c.FilingProducts.Find(ctx, offer, r.Filing)
	}
	products, err := c.FilingProducts.Offerings(ctx, offer)
	if err != nil {
		return nil, err
	}
	return only(products, func(p FilingProduct) bool { return p.ID == r.ProductID }, "offered product "+r.ProductID.String())
}

// orderMethod finds the filing method of the order: by id, by name, or
// the product's only one.
func (c *Client) orderMethod(ctx context.Context, r *OrderRequest, product *FilingProduct) (*FilingMethod, error) {
	methods, err := c.FilingMethods.List(ctx, &FilingMethodListParams{CompanyID: r.CompanyID, Jurisdiction: r.Jurisdiction, FilingProductID: product.ID})
	if err != nil {
		return nil, err
	}
	return only(methods, func(m FilingMethod) bool {
		return r.FilingMethodID != uuid.Nil && r.FilingMethodID == m.ID || r.Method != "" && normalWords(r.Method) == normalWords(m.Name) ||
			r.FilingMethodID == uuid.Nil && r.Method == ""
	}, "filing method of "+product.Name)
}

// checkOrderForm checks r.FormData against the schema of the order's
// filing method. A schema that cannot be read or used is noted in res,
// and the order goes on.
func (c *Client) checkOrderForm(ctx context.Context, r *OrderRequest, res *OrderResult) error {
	if r.FormData == nil {
		res.SchemaNote = "no form data given"
		return nil
	}
	schemas, err := c.FilingMethods.Schemas(ctx, &FormSchemaParams{CompanyID: r.CompanyID, FilingMethodID: res.Method.ID})
	if err != nil {
		res.SchemaNote = "the form was not checked: reading its schema failed: " + err.Error()
		return nil
	}
	i := slices.IndexFunc(schemas, func(s FormSchema) bool { return s.Name == "" || s.Name == "form_data" })
	if i < 0 {
		res.SchemaNote = "the form was not checked: the filing method lists no schema for it"
		return nil
	}
	schema, err := parseFormSchema(schemas[i].Schema)
	if err != nil {
		res.SchemaNote = "the form was not checked: " + err.Error()
		return nil
	}
	if err := schema.check("form_data", r.FormData); err != nil {
		return err
	}
	res.SchemaChecked = true
	return nil
}

// refuseDuplicate refuses the order when items, the company's waiting
// order items, hold one of the product that is not finished, unless
// r.AllowDuplicate.
func refuseDuplicate(r *OrderRequest, product *FilingProduct, items []OrderItem) error {
	if r.AllowDuplicate {
		return nil
	}
	for _, it := range items {
		if it.CompanyID == r.CompanyID && it.Product.ID == product.ID && slices.Contains(unfinished, it.Status) {
			return &DuplicateOrderError{Item: it, Product: product.Name}
		}
	}
	return nil
}

// orderCard finds the stored card of the order, or stores its card.
func (c *Client) orderCard(ctx context.Context, r *OrderRequest) (*PaymentMethod, error) {
	if r.Card != nil {
		return c.PaymentMethods.Store(ctx, r.Card)
	}
	cards, err := c.PaymentMethods.List(ctx)
	if err != nil {
		return nil, err
	}
	return only(cards, func(m PaymentMethod) bool { return m.ID == r.PaymentMethodID }, "stored card "+r.PaymentMethodID.String())
}

// orderCheckout checks out the order's cart item, once, and answers the
// form of the order item it made. before are the company's waiting order
// items before the checkout.
func (c *Client) orderCheckout(ctx context.Context, r *OrderRequest, res *OrderResult, before []OrderItem) error {
	invBefore, err := c.companyInvoices(ctx, r.CompanyID)
	if err != nil {
		return err
	}
	inCart, err := c.inCart(ctx, r.CompanyID, res.CartItem.ID)
	if err != nil {
		return err
	}
	if !inCart {
		return fmt.Errorf("%w: the cart item %s is not in the cart before the checkout", ErrNoMatch, res.CartItem.ID)
	}
	out, err := c.ShoppingCart.Checkout(ctx, &CheckoutParams{ItemIDs: []uuid.UUID{res.CartItem.ID}, PaymentMethodID: res.Card.ID})
	if err != nil {
		return c.checkoutFailed(ctx, r, res, invBefore, err)
	}
	res.Checkout = out
	after, err := c.OrderItems.ListRequiringAttention(ctx, &OrderItemListParams{CompanyIDs: []uuid.UUID{r.CompanyID}})
	if err != nil {
		return fmt.Errorf("acctadmin: checked out; listing the order items it made: %w", err)
	}
	out.OrderItems = newOrderItems(before, after)
	return c.submitOrderForm(ctx, r, res)
}

// checkoutFailed is the *CheckoutOutcomeError of a checkout that failed
// with err. An answer that proves the checkout was not applied is
// NotCharged; after a lost answer the invoices and the cart are listed
// again, and compared with invBefore and the cart item.
func (c *Client) checkoutFailed(ctx context.Context, r *OrderRequest, res *OrderResult, invBefore []Invoice, err error) error {
	e := &CheckoutOutcomeError{Verdict: NotCharged, Err: err}
	if !errors.Is(err, ErrOutcomeUnknown) {
		return e
	}
	e.Verdict = ChargeUnknown
	invAfter, ierr := c.companyInvoices(ctx, r.CompanyID)
	inCart, cerr := c.inCart(ctx, r.CompanyID, res.CartItem.ID)
	if e.CheckErr = errors.Join(ierr, cerr); e.CheckErr == nil {
		known := ids(invBefore, invoiceID)
		for _, inv := range invAfter {
			if !slices.Contains(known, inv.ID) {
				e.InvoiceIDs = append(e.InvoiceIDs, inv.ID)
			}
		}
		e.Verdict = verdict(len(e.InvoiceIDs), inCart)
	}
	return e
}

// companyInvoices lists every invoice of the company.
func (c *Client) companyInvoices(ctx context.Context, company uuid.UUID) ([]Invoice, error) {
	var list []Invoice
	for inv, err := range c.Invoices.All(ctx, &InvoiceListParams{CompanyIDs: []uuid.UUID{company}}) {
		if err != nil {
			return nil, err
		}
		list = append(list, inv)
	}
	return list, nil
}

// inCart reports whether the company's cart holds the item.
func (c *Client) inCart(ctx context.Context, company, item uuid.UUID) (bool, error) {
	cart, err := c.ShoppingCart.List(ctx, &CartListParams{CompanyIDs: []uuid.UUID{company}})
	return slices.Contains(ids(cart, cartItemID), item), err
}

// submitOrderForm answers, with r.FormData, the form of the one new
// order item of the company and product that waits for it.
func (c *Client) submitOrderForm(ctx context.Context, r *OrderRequest, res *OrderResult) error {
	var waiting []OrderItem
	for _, it := range res.Checkout.OrderItems {
		if it.CompanyID == r.CompanyID && (it.Product.ID == uuid.Nil || it.Product.ID == res.Product.ID) {
			waiting = append(waiting, it)
		}
	}
	if len(waiting) == 0 && r.FormData == nil {
		return nil
	}
	var err error
	if res.OrderItem, err = only(waiting, func(OrderItem) bool { return true }, "new order item of "+res.Product.Name+" waiting for its form"); err != nil || r.FormData == nil {
		return err
	}
	done, err := c.OrderItems.SubmitFormData(ctx, &OrderItemFormDataParams{CompanyID: r.CompanyID, OrderItemID: res.OrderItem.ID, FormData: r.FormData})
	if done != nil {
		res.OrderItem = done
	}
	return err
}
