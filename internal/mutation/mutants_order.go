package main

// The slips of ordering's money rules: a lost checkout said not charged,
// a repeated order charged, a form checked after the charge or not at
// all, the order's secrets shown, the order request printed whole, and
// the form silently not sent.
func init() {
	const run = `TestOrder|TestFormSchema|TestCallRedact`
	mutants = append(mutants,
		// A lost checkout is never said not charged.
		mutant{id: `order-lost-answer-not-charged`, file: `order.go`, pkg: `.`, run: run,
			what: `a checkout whose answer was lost said not charged when the listings show nothing yet`,
			from: `	e.Verdict = ChargeUnknown
`,
			to: `	e.Verdict = NotCharged
`},
		mutant{id: `order-refusal-not-known`, file: `order.go`, pkg: `.`, run: run,
			what: `a checkout the API refused said still unknown`,
			from: `	e := &CheckoutOutcomeError{Verdict: NotCharged, Err: err}`,
			to:   `	e := &CheckoutOutcomeError{Verdict: ChargeUnknown, Err: err}`},
		// A repeated order is refused.
		mutant{id: `order-duplicate-charged`, file: `order.go`, pkg: `.`, run: run,
			what: `an order of a product the company still waits on charged again`,
			from: `	if r.AllowDuplicate {
		return nil
	}`,
			to: `	if true {
		return nil
	}`},
		mutant{id: `order-duplicate-allowed-refused`, file: `order.go`, pkg: `.`, run: run,
			what: `AllowDuplicate not heard`,
			from: `	if r.AllowDuplicate {
		return nil
	}`,
			to: `	if false {
		return nil
	}`},
		mutant{id: `order-duplicate-new-finished`, file: `order.go`, pkg: `.`, run: run,
			what: `an order item that is new (being worked on) taken for finished`,
			from: `var unfinished = []OrderItemStatus{OrderItemRequiringAttention, OrderItemNew}`,
			to:   `var unfinished = []OrderItemStatus{OrderItemRequiringAttention}`},
		mutant{id: `order-duplicate-any-status`, file: `order.go`, pkg: `.`, run: run,
			what: `a finished order item taken for one still waited on`,
			from: `it.Product.ID == product.ID && slices.Contains(unfinished, it.Status)`,
			to:   `it.Product.ID == product.ID`},
		// The form is checked before the charge.
		mutant{id: `order-form-not-checked`, file: `order.go`, pkg: `.`, run: run,
			what: `the form's refusal by its schema ignored: the card charged first`,
			from: `	if err := schema.check("form_data", r.FormData); err != nil {`,
			to:   `	if err := schema.check("form_data", r.FormData); false && err != nil {`},
		mutant{id: `order-form-no-schema-stops`, file: `order.go`, pkg: `.`, run: run,
			what: `a schema that cannot be read stops the order`,
			from: `		res.SchemaNote = "the form was not checked: reading its schema failed: " + err.Error()
		return nil`,
			to: `		res.SchemaNote = "the form was not checked: reading its schema failed: " + err.Error()
		return err`},
		mutant{id: `order-form-pattern-ignored`, file: `form_schema.go`, pkg: `.`, run: run,
			what: `a pattern of the schema not checked`,
			from: `err == nil && !re.MatchString(v) {`,
			to:   `err == nil && false && !re.MatchString(v) {`},
		mutant{id: `order-form-required-ignored`, file: `form_schema.go`, pkg: `.`, run: run,
			what: `a required field of the schema not checked`,
			from: `		if _, there := v[name]; !there {`,
			to:   `		if _, there := v[name]; false && !there {`},
		mutant{id: `order-form-enum-ignored`, file: `form_schema.go`, pkg: `.`, run: run,
			what: `an enumeration of the schema not checked`,
			from: `	if n.Enum != nil && !slices.ContainsFunc(`,
			to:   `	if false && n.Enum != nil && !slices.ContainsFunc(`},
		mutant{id: `order-form-ref-not-followed`, file: `form_schema.go`, pkg: `.`, run: run,
			what: `a $ref of the schema not followed`,
			from: `		n, depth = next, depth+1`,
			to:   `		return n, depth`},
		// The order request prints redacted.
		mutant{id: `order-request-prints-form`, file: `order.go`, pkg: `.`, run: `TestOrderRequestFormatsRedacted`,
			what: `an OrderRequest printed with its form's values`,
			from: `	r.FormData = redactedForm(r.FormData)
	formatFields(f, verb, r, "acctadmin.OrderRequest")`,
			to: `	formatFields(f, verb, r, "acctadmin.OrderRequest")`},
		mutant{id: `order-request-marshals-form`, file: `order.go`, pkg: `.`, run: `TestOrderRequestFormatsRedacted`,
			what: `an OrderRequest marshalled with its form's values`,
			from: `	type plain OrderRequest
	r.FormData = redactedForm(r.FormData)`,
			to: `	type plain OrderRequest`},
		// Redaction covers the whole workflow.
		mutant{id: `order-secrets-not-carried`, file: `order.go`, pkg: `.`, run: run,
			what: `the order's calls not told its card and form: a later answer's echo shown`,
			from: `	ctx = WithCallOptions(ctx, CallRedact(r.secrets()...))`,
			to:   `	ctx = WithCallOptions(ctx)`},
		mutant{id: `order-call-redact-unused`, file: `errors.go`, pkg: `.`, run: run,
			what: `the values of CallRedact not given to the call's redaction`,
			from: `		st.red.addBodyValues(st.redactValues, (*redactor).addCallValue)`,
			to:   ``},
		mutant{id: `order-call-redact-inner-replaces`, file: `call_options.go`, pkg: `.`, run: run,
			what: `an inner CallRedact replacing the outer values`,
			from: `		o.redact = append(slices.Clip(o.redact), values...)`,
			to:   `		o.redact = values`},
		mutant{id: `order-call-redact-not-regrouped`, file: `redact.go`, pkg: `.`, run: run,
			what: `a number of CallRedact looked for only as written`,
			from: `func (r *redactor) addCallValue(v string) {
	r.addPersonal(v)`,
			to: `func (r *redactor) addCallValue(v string) {`},
		// The form is sent when given.
		mutant{id: `order-form-silently-not-sent`, file: `order.go`, pkg: `.`, run: run,
			what: `Order returning early when no order item waits although FormData was given`,
			from: `	if errors.Is(err, ErrNoMatch) && r.FormData == nil {`,
			to:   `	if errors.Is(err, ErrNoMatch) || r.FormData == nil {`},
	)
}
