package acctadmintest

import (
	_ "embed"
	"encoding/json"
	"time"
)

// EINFormSchema is the JSON Schema of the form_data of the demo's EIN
// ("tax id") filing methods, after the provider's
// data/form_data_ein_tax_id.json.
//
//go:embed ein_form.schema.json
var EINFormSchema []byte

// The demo's federal EIN filing, as the provider's end-to-end example
// looks for it: a product whose filing_name is "tax id", with a filing
// method "Standard" of type online; in the cart it is titled
// "Tax id filing service - Standard", and checkout makes of it an order
// item "Standard Federal EIN - Tax Id filing" that requires the client's
// attention until its form data is given.
var (
	// DemoEINProductID is the EIN filing product (kind catalog-product).
	DemoEINProductID = DemoID("catalog-product", 1)
	// DemoEINMethodID is its "Standard" online method (kind
	// catalog-method); DemoID("catalog-method", 2) is "Expedited".
	DemoEINMethodID = DemoID("catalog-method", 1)
)

// seedCommerce adds the demo's catalogue, payment method, cart item and
// order item; f.mu must be held. website is the demo website, co the demo
// companies.
func (f *Fake) seedCommerce(now time.Time, website Website, co []Company) {
	st := &f.st
	ein := &FilingProduct{ID: DemoEINProductID, Name: "Tax id filing service", FilingName: "tax id", Price: "79.00"}
	for i, m := range []struct{ name, cost string }{{"Standard", "0.00"}, {"Expedited", "50.00"}} {
		id := DemoID("catalog-method", i+1)
		ein.Methods = append(ein.Methods, FilingMethod{
			ID: id, Name: m.name, Type: FilingOnline, Cost: m.cost,
			FiledIn: Turnaround{Days: 5 - 4*i}, DocsIn: Turnaround{Hours: 4},
			AgencyName: "Internal Revenue Service", Jurisdiction: FederalJurisdiction,
			FilingDescription: m.name + " application for an Employer Identification Number (IRS Form SS-4)",
		})
		st.offerings[id] = offering{orderName: m.name + " Federal EIN - Tax Id filing", schema: json.RawMessage(EINFormSchema)}
		st.forms.insert(&SignedForm{ID: DemoID("signed-form", i+1), FilingMethodID: id, Name: "IRS Form SS-4 signature authorization", Pages: 1})
	}
	st.catalog.insert(ein)

	for i, p := range []struct{ name, desc, price string }{
		{"Certified Copy", "A certified copy of the company's formation documents", "25.00"},
		{"Operating Agreement", "An operating agreement drafted for the company", "49.00"},
	} {
		st.simple.insert(&SimpleProduct{ID: DemoID("simple-product", i+1), WebsiteURL: website.URL, Name: p.name, Description: p.desc, Price: p.price})
	}

	st.payments.insert(&PaymentMethod{
		ID: DemoID("payment-method", 1), Brand: "visa", Last4: "4242", ExpMonth: 12, ExpYear: now.Year() + 4,
		FirstName: "Ada", LastName: "Lovelace", CreatedAt: now.Add(-90 * 24 * time.Hour),
		Billing: BillingAddress{Address1: "100 Main Street", City: "Salt Lake City", State: "UT", Zip: "84101", Country: "US"},
	})

	acme := co[0]
	var annual *FilingProduct
	for _, p := range st.products.rows {
		if p.FilingName == "annual report" {
			annual = p
		}
	}
	if annual != nil {
		m := annual.Methods[0]
		st.cart.insert(&CartItem{
			ID: DemoID("cart-item", 1), CompanyID: acme.ID, ProductID: annual.ID, ProductType: ProductTypeFiling,
			ProductOptionID: m.ID, Title: annual.Name + " - " + m.Name, UnitPrice: decimal(cents(annual.Price) + cents(m.Cost)),
			Quantity: 1, CreatedAt: now.Add(-2 * time.Hour), UpdatedAt: now.Add(-2 * time.Hour),
		})
	}
	st.orders.insert(&OrderItem{
		ID: DemoID("order-item", 1), OrderID: DemoID("order", 1), CompanyID: acme.ID,
		Name: "Standard Federal EIN - Tax Id filing", Type: "filing", Status: OrderItemRequiringAttention, Quantity: 1,
		ProductID: DemoEINProductID, MethodID: DemoEINMethodID,
		CreatedAt: now.Add(-24 * time.Hour), UpdatedAt: now.Add(-24 * time.Hour),
	})
}
