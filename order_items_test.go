package acctadmin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// Params that carry a form print, marshal and log its strings and
// numbers redacted, under every verb, in slices and maps and behind
// pointers, and say so; the request body still carries the values.
func TestFormParamsFormatRedacted(t *testing.T) {
	form := map[string]any{"ssn": "123-45-6789", "owner": map[string]any{"name": "Zelda Qwix", "dob": "1984-02-29",
		"phones": []any{"(801) 555-0199"}, "tax_id": 987654321}, "ein_trucking": false}
	order := &OrderItemFormDataParams{CompanyID: wcCompany, OrderItemID: wcOrder, FormData: form}
	cart := &CartAddParams{CompanyID: wcCompany, ProductID: wcProduct, FormData: form}
	needles := []string{"123-45-6789", "Zelda Qwix", "1984-02-29", "555-0199", "987654321"}
	noTime := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	for _, v := range []any{order, *order, cart, *cart, []*OrderItemFormDataParams{order}, map[string]CartAddParams{"c": *cart}} {
		var texts []string
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
			texts = append(texts, fmt.Sprintf(verb, v))
		}
		var logs bytes.Buffer
		for _, h := range []slog.Handler{slog.NewTextHandler(&logs, noTime), slog.NewJSONHandler(&logs, noTime)} {
			slog.New(h).Info("params", "p", v)
		}
		texts = append(texts, logs.String())
		for _, text := range texts {
			for _, n := range needles {
				if strings.Contains(text, n) {
					t.Errorf("%T shows %q: %s", v, n, text)
				}
			}
		}
		if s := fmt.Sprintf("%+v", v); !strings.Contains(s, "ssn:[redacted]") || !strings.Contains(s, "ein_trucking:false") {
			t.Errorf("%%+v of %T = %s, want the form's keys with its values redacted", v, s)
		}
		if b, err := json.Marshal(v); err != nil || !strings.Contains(string(b), `"ssn":"[redacted]"`) {
			t.Errorf("json of %T = %s, %v: want the form's keys with its values redacted", v, b, err)
		}
	}
	if !strings.Contains(logsOf(order), `"form_data":{"ein_trucking":false,"owner":{"dob":"[redacted]"`) {
		t.Errorf("slog JSON of the params = %s", logsOf(order))
	}
	for _, v := range []any{bodyOf{order}, bodyOf{cart}} {
		b, err := json.Marshal(v)
		if err != nil || !strings.Contains(string(b), `"ssn":"123-45-6789"`) || !strings.Contains(string(b), `"tax_id":987654321`) {
			t.Errorf("the body of %T = %s, %v: want the form as given", v, b, err)
		}
	}
}

func logsOf(v any) string {
	var b bytes.Buffer
	slog.New(slog.NewJSONHandler(&b, nil)).Info("params", "p", v)
	return b.String()
}
