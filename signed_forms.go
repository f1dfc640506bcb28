package acctadmin

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
)

// SignedFormsClient reads the signed forms of a filing method.
type SignedFormsClient service

var routeSignedFormsList = declare(http.MethodGet, "/signed-forms", "SignedForms.List")

// SignedForm is a form signed for a filing method.
type SignedForm struct {
	ID             uuid.UUID       `json:"id"`
	Name           string          `json:"name"`
	FilingMethodID uuid.UUID       `json:"filing_method_id"`
	Pages          int             `json:"pages"`
	Raw            json.RawMessage `json:"-"` // the record exactly as the API sent it
}

// UnmarshalJSON reads a signed form as the API writes it, into Raw too.
func (f *SignedForm) UnmarshalJSON(data []byte) error {
	type fields SignedForm
	w := struct {
		*fields
		Pages flexInt `json:"pages"`
	}{fields: (*fields)(f)}
	*f = SignedForm{}
	err := readRecord(data, &w)
	f.Pages, f.Raw = int(w.Pages), keepRaw(data)
	return err
}

// SignedFormListParams chooses the forms of the filing method
// FilingMethodID (required) and, when given, the website WebsiteID.
type SignedFormListParams struct {
	FilingMethodID, WebsiteID uuid.UUID
}

// List returns the signed forms of a filing method. GET /signed-forms.
func (s *SignedFormsClient) List(ctx context.Context, p *SignedFormListParams) ([]SignedForm, error) {
	p = orZero(p)
	if err := checkID("filing_method_id", p.FilingMethodID); err != nil {
		return nil, err
	}
	q := new(query).id("filing_method_id", p.FilingMethodID).id("website_id", p.WebsiteID)
	var forms []SignedForm
	if err := s.c.json(ctx, routeSignedFormsList.at(), q, nil, &forms); err != nil {
		return nil, err
	}
	return forms, nil
}
