package acctadmin

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
)

// SignedFormsClient reads the signed forms of a filing method.
type SignedFormsClient service

// routeSignedFormsList is the route of signed forms.
var routeSignedFormsList = declare(http.MethodGet, "/signed-forms", "SignedForms.List")

// SignedForm is a form signed for a filing method. Nothing of its shape or
// purpose is shown by the provider; the fields typed here are those of
// the SDK's fake, and the whole record is kept in Raw.
type SignedForm struct {
	ID             uuid.UUID `json:"id"`
	Name           string    `json:"name"`
	FilingMethodID uuid.UUID `json:"filing_method_id"`
	Pages          int       `json:"pages"`
	// Raw is the record exactly as the API sent it.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the known fields and keeps the whole record in Raw.
func (f *SignedForm) UnmarshalJSON(data []byte) error {
	return decodeRecord[signedFormWire](data, f, &f.Raw)
}

type plainSignedForm SignedForm

type signedFormWire struct {
	plainSignedForm
	Pages flexInt `json:"pages"`
}

func (w signedFormWire) record() SignedForm {
	f := SignedForm(w.plainSignedForm)
	f.Pages = int(w.Pages)
	return f
}

// SignedFormListParams chooses the forms of GET /signed-forms.
type SignedFormListParams struct {
	// FilingMethodID is the filing method; required.
	FilingMethodID uuid.UUID
	// WebsiteID is the website, when given.
	WebsiteID uuid.UUID
}

// List returns the signed forms of the filing method p.FilingMethodID.
// GET /signed-forms.
func (s *SignedFormsClient) List(ctx context.Context, p *SignedFormListParams) ([]SignedForm, error) {
	if p == nil {
		p = &SignedFormListParams{}
	}
	if err := checkID("filing_method_id", p.FilingMethodID); err != nil {
		return nil, err
	}
	q := &query{}
	q.id("filing_method_id", p.FilingMethodID)
	q.id("website_id", p.WebsiteID)
	return call[[]SignedForm](ctx, s.c, routeSignedFormsList.at(), q, nil)
}
