package acctadmin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"
)

// OrderRequest is a filing to order with Client.Order. CompanyID,
// Jurisdiction, one of Filing and ProductID, and one of PaymentMethodID
// and Card are required. It prints and marshals redacted.
type OrderRequest struct {
	CompanyID uuid.UUID
	// Jurisdiction is where the company files ("WY" or "Wyoming").
	Jurisdiction string
	// Filing is what the filing files, as FilingProducts.Find takes it
	// ("EIN", "annual report"); ProductID names the product instead.
	Filing    string
	ProductID uuid.UUID
	// FilingMethodID is the filing method; Method names it instead
	// ("Standard"). With neither, the product must have one method only.
	FilingMethodID uuid.UUID
	Method         string
	// PaymentMethodID is the stored card to charge; Card is one to store
	// first, anew each time (pass the result's Card.ID the next time).
	PaymentMethodID uuid.UUID
	Card            *Card
	// FormData answers the form the order item waits for (see
	// FilingMethods.Schemas); nil leaves the item waiting.
	FormData any
	// AllowDuplicate orders even when the company has an unfinished
	// order item of the product.
	AllowDuplicate bool
}

// OrderResult is what Client.Order did; steps it did not reach are zero.
type OrderResult struct {
	Product *FilingProduct
	Method  *FilingMethod
	// SchemaChecked is true when FormData passed the filing method's
	// schema before anything was put in the cart; else SchemaNote says
	// why, and only the API checks the form, once the card is charged.
	SchemaChecked bool
	SchemaNote    string
	Card          *PaymentMethod // the card charged
	CartItem      *CartItem      // the item put in the cart
	// Checkout is the checkout's answer, with the order items it made.
	// Non-nil, the card was charged: do not order again, whatever error
	// comes with it.
	Checkout *Checkout
	// OrderItem is the order item of the filing (as SubmitFormData
	// answered it, when FormData was given); nil when it needs no form.
	OrderItem *OrderItem
}

// ChargeVerdict is what Client.Order found out about a checkout that
// failed: whether the card was charged.
type ChargeVerdict string

// The verdicts.
const (
	// Charged: the answer was lost, and the listings show new invoices
	// of the company and the item gone from the cart.
	Charged ChargeVerdict = "charged"
	// NotCharged: the answer proves no charge; ordering again is safe.
	NotCharged ChargeVerdict = "not charged"
	// ChargeUnknown: the answer was lost and the listings do not show the
	// charge, which may still happen: read them again before ordering again.
	ChargeUnknown ChargeVerdict = "still unknown"
)

// unfinished are the statuses of an order item not yet done.
var unfinished = []OrderItemStatus{OrderItemRequiringAttention, OrderItemNew}

// Order orders a filing for a company, end to end, with the client's
// public methods: the product and filing method, r.FormData checked
// against the method's schema, a duplicate of an unfinished order refused
// (*DuplicateOrderError) unless r.AllowDuplicate, the card, the cart item,
// its checkout alone, and the form of the order item it made. Every call
// redacts the card and the form's values. Nothing is charged before the
// checkout, sent at most once (see the package doc); its failure is a
// *CheckoutOutcomeError whose Verdict says whether the card was charged.
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

// secrets are the values every call of the order redacts.
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

// orderMethod finds the filing method: by id, by name, or the only one.
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

// checkOrderForm checks r.FormData against the filing method's schema;
// one that cannot be read or used is noted in res.
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

// refuseDuplicate refuses the order when items hold an unfinished one of
// the product, unless r.AllowDuplicate.
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

// orderCheckout checks out the cart item, once, and answers the form of
// the order item it made; before are the waiting order items before it.
func (c *Client) orderCheckout(ctx context.Context, r *OrderRequest, res *OrderResult, before []OrderItem) error {
	invBefore, inCart, err := c.chargeSigns(ctx, r.CompanyID, res.CartItem.ID)
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
	out.OrderItems = fresh(before, after, orderItemID)
	return c.submitOrderForm(ctx, r, res)
}

// checkoutFailed is the *CheckoutOutcomeError of a failed checkout; after
// a lost answer the invoices and the cart are listed again.
func (c *Client) checkoutFailed(ctx context.Context, r *OrderRequest, res *OrderResult, invBefore []uuid.UUID, err error) error {
	e := &CheckoutOutcomeError{Verdict: NotCharged, Err: err}
	if !errors.Is(err, ErrOutcomeUnknown) {
		return e
	}
	e.Verdict = ChargeUnknown
	invAfter, inCart, err := c.chargeSigns(ctx, r.CompanyID, res.CartItem.ID)
	if e.CheckErr = err; e.CheckErr == nil {
		for _, id := range invAfter {
			if !slices.Contains(invBefore, id) {
				e.InvoiceIDs = append(e.InvoiceIDs, id)
			}
		}
		// Never NotCharged: a lost checkout may still take effect.
		if len(e.InvoiceIDs) > 0 && !inCart {
			e.Verdict = Charged
		}
	}
	return e
}

// chargeSigns lists the company's invoices and whether its cart holds item.
func (c *Client) chargeSigns(ctx context.Context, company, item uuid.UUID) ([]uuid.UUID, bool, error) {
	var invoices []uuid.UUID
	for inv, err := range c.Invoices.All(ctx, &InvoiceListParams{CompanyIDs: []uuid.UUID{company}}) {
		if err != nil {
			return nil, false, err
		}
		invoices = append(invoices, inv.ID)
	}
	cart, err := c.ShoppingCart.List(ctx, &CartListParams{CompanyIDs: []uuid.UUID{company}})
	return invoices, slices.Contains(ids(cart, cartItemID), item), err
}

// submitOrderForm answers the form of the new order item of the product.
func (c *Client) submitOrderForm(ctx context.Context, r *OrderRequest, res *OrderResult) error {
	item, err := only(res.Checkout.OrderItems, func(it OrderItem) bool {
		return it.CompanyID == r.CompanyID && (it.Product.ID == uuid.Nil || it.Product.ID == res.Product.ID)
	}, "new order item of "+res.Product.Name+" waiting for its form")
	if errors.Is(err, ErrNoMatch) && r.FormData == nil {
		return nil
	}
	if res.OrderItem = item; err != nil || r.FormData == nil {
		return err
	}
	done, err := c.OrderItems.SubmitFormData(ctx, &OrderItemFormDataParams{CompanyID: r.CompanyID, OrderItemID: res.OrderItem.ID, FormData: r.FormData})
	if done != nil {
		res.OrderItem = done
	}
	return err
}

// Format prints the request as fmt prints a struct, with FormData's
// strings and numbers as "[redacted]" (the card prints itself redacted).
func (r OrderRequest) Format(f fmt.State, verb rune) {
	r.FormData = redactedForm(r.FormData)
	formatFields(f, verb, r, "acctadmin.OrderRequest")
}

// MarshalJSON writes the request as encoding/json would, redacted as
// Format prints it.
func (r OrderRequest) MarshalJSON() ([]byte, error) {
	type plain OrderRequest
	r.FormData = redactedForm(r.FormData)
	return json.Marshal(plain(r))
}
