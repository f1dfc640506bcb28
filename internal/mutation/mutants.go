package main

// mutant is one realistic change to a file that carries a guarantee.
type mutant struct {
	id   string // a name for the mutant
	file string // the file, from the module root
	what string // what the change would let through
	from string // the source text, which must occur once in the file
	to   string // what it becomes
	pkg  string // the package whose tests must kill it
	run  string // the tests to run (-run); every test of pkg when empty
}

// mutants are the changes .ci/mutation applies, one at a time. Each is a
// mistake someone could make and every test still compile: a bound moved
// by one, a condition dropped, a rule of the retries loosened, a secret
// shown. A mutant whose text a later edit removed is reported stale, to
// be written again against the new code.
var mutants = []mutant{
	{id: `transport-patch-repeatable`, file: `transport.go`, pkg: `.`,
		what: `a PATCH is retried as if repeatable`,
		from: `	case st.route.class == atMostOnce:
		return false // money once`,
		to: `	case st.route.class == atMostOnce && st.method != http.MethodPatch:
		return false // money once`},
	{id: `transport-read-reset-retried`, file: `transport.go`, pkg: `.`,
		what: `a reset after the request went out counts as a failed connect`,
		from: `if errors.As(err, &op) && op.Op == "dial" {`,
		to:   `if errors.As(err, &op) && (op.Op == "dial" || op.Op == "read") {`},
	{id: `transport-dns-not-connect`, file: `transport.go`, pkg: `.`,
		what: `a name that does not resolve is not a failed connect`,
		from: `	var dns *net.DNSError
	return errors.As(err, &dns)
}`,
		to: `	return false
}`},
	{id: `transport-retry-after-600`, file: `transport.go`, pkg: `.`,
		what: `the Retry-After cap raised to 600 s`,
		from: `maxRetryAfter    = 60 * time.Second`,
		to:   `maxRetryAfter    = 600 * time.Second`},
	{id: `transport-retry-after-boundary`, file: `transport.go`, pkg: `.`,
		what: `a Retry-After of exactly the cap refused`,
		from: `	case wait > st.c.retryAfterMax:`,
		to:   `	case wait >= st.c.retryAfterMax:`},
	{id: `transport-json-cap-plus-one`, file: `transport.go`, pkg: `.`,
		what: `a JSON answer one byte over the cap accepted`,
		from: `	if len(b) > maxJSONBody {
		return nil, ErrResponseTooLarge
	}
	return b, nil`,
		to: `	if len(b) > maxJSONBody+1 {
		return nil, ErrResponseTooLarge
	}
	return b, nil`},
	{id: `transport-json-cap-loop`, file: `transport.go`, pkg: `.`,
		what: `the read loop stops one byte late`,
		from: `			if len(b) > maxJSONBody {
				return nil, ErrResponseTooLarge`,
		to: `			if len(b) > maxJSONBody+1 {
				return nil, ErrResponseTooLarge`},
	{id: `transport-content-length-cap`, file: `transport.go`, pkg: `.`,
		what: `an announced Content-Length over the cap is read anyway`,
		from: `	if resp.ContentLength > maxJSONBody {`,
		to:   `	if resp.ContentLength > 2*maxJSONBody {`},
	{id: `transport-no-502`, file: `transport.go`, pkg: `.`,
		what: `502 not retried`,
		from: `case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,`,
		to:   `case http.StatusTooManyRequests, http.StatusInternalServerError,`},
	{id: `transport-retry-400`, file: `transport.go`, pkg: `.`,
		what: `400 retried like a 5xx`,
		from: `		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
	default:`,
		to: `		http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusBadRequest:
	default:`},
	{id: `transport-too-large-retried`, file: `transport.go`, pkg: `.`,
		what: `an answer over the cap is retried`,
		from: `if errors.As(err, &ae) || errors.Is(err, ErrResponseTooLarge) || errors.As(err, new(*limiterError)) {`,
		to:   `if errors.As(err, &ae) || errors.As(err, new(*limiterError)) {`},
	{id: `transport-auth-error-retried`, file: `transport.go`, pkg: `.`,
		what: `a signer that fails is retried`,
		from: `if errors.As(err, &ae) || errors.Is(err, ErrResponseTooLarge) || errors.As(err, new(*limiterError)) {`,
		to:   `if ae != nil || errors.Is(err, ErrResponseTooLarge) || errors.As(err, new(*limiterError)) {`},
	{id: `transport-status-ignores-class`, file: `transport.go`, pkg: `.`,
		what: `a write is retried on 5xx`,
		from: `	case st.route.class == atMostOnce:
		return false // money once`,
		to: `	case st.route.class == atMostOnce && err != nil:
		return false // money once`},
	{id: `transport-ctx-ignored`, file: `transport.go`, pkg: `.`,
		what: `a cancelled context does not stop the retries`,
		from: `	if ctx.Err() != nil {
		return false, ctx.Err()
	}`,
		to: `	if false {
		return false, ctx.Err()
	}`},
	{id: `transport-backoff-flat`, file: `transport.go`, pkg: `.`,
		what: `the backoff does not grow`,
		from: `		lo *= 2
`,
		to: `		lo *= 1
`},
	{id: `transport-backoff-over-max`, file: `transport.go`, pkg: `.`,
		what: `the backoff may leave [min, max]`,
		from: `	return lo + rand.N(up-lo+1)`,
		to:   `	return lo + rand.N(up+1)`},
	{id: `transport-negative-retry-after`, file: `transport.go`, pkg: `.`,
		what: `a negative Retry-After is taken as 0`,
		from: `		if secs < 0 {
			return 0, false`,
		to: `		if secs < 0 {
			return 0, true`},
	{id: `transport-redirect-scheme`, file: `transport.go`, pkg: `.`,
		what: `a redirect to another scheme is followed`,
		from: `if req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {`,
		to:   `if req.URL.Host != via[0].URL.Host {`},
	{id: `transport-redirect-count`, file: `transport.go`, pkg: `.`,
		what: `one redirect more than the bound`,
		from: `		if len(via) >= maxRedirects {`,
		to:   `		if len(via) > maxRedirects {`},
	{id: `transport-sign-other-scheme`, file: `transport.go`, pkg: `.`,
		what: `a request to the API's host on another scheme is signed`,
		from: `	if req.URL.Host != t.host || req.URL.Scheme != t.scheme {`,
		to:   `	if req.URL.Host != t.host {`},
	{id: `transport-drain-nothing`, file: `transport.go`, pkg: `.`,
		what: `a discarded answer is closed unread`,
		from: `	_, _ = io.Copy(io.Discard, io.LimitReader(body, maxDrain))
	body.Close()`,
		to: `	body.Close()`},
	{id: `transport-timeout-vs-cancel`, file: `transport.go`, pkg: `.`,
		what: `a cancel by the caller is reported as a timeout`,
		from: `	if err != nil && fired && r.Context().Err() == nil {`,
		to:   `	if err != nil && (fired || r.Context().Err() != nil) {`},
	{id: `transport-trusted-length`, file: `transport.go`, pkg: `.`,
		what: `Content-Length believed up to the cap`,
		from: `	if n := min(resp.ContentLength, maxTrustedLength); n >= 0`,
		to:   `	if n := min(resp.ContentLength, maxJSONBody); n >= 0`},
	{id: `transport-token-not-learnt`, file: `errors.go`, pkg: `.`,
		what: `a transport error does not learn the call's token`,
		from: `		st.secrets().addToken(req.Header.Get("Authorization"))`,
		to:   `		_ = req`},
	{id: `transport-redirect-tokens`, file: `errors.go`, pkg: `.`,
		what: `the tokens of earlier redirects are not redacted`,
		from: `		resp = resp.Request.Response
`,
		to: `		resp = nil
`},
	{id: `transport-redirect-host-raw`, file: `errors.go`, pkg: `.`,
		what: `a redirect's host is shown raw`,
		from: `return "redirect to another host not followed"`,
		to:   `return "redirect to " + loc.Scheme + "://" + loc.Host + " not followed"`},
	{id: `transport-cause-raw`, file: `errors.go`, pkg: `.`,
		what: `a transport error shows its cause raw`,
		from: `	text := r.clean(causeText(err), maxMessage)`,
		to:   `	text := causeText(err)`},
	{id: `transport-attempt-error-raw`, file: `transport.go`, pkg: `.`,
		what: `a hook gets the attempt's raw error`,
		from: `st.obs.attemptOutcome(resp, st.redact(err))`,
		to:   `st.obs.attemptOutcome(resp, err)`},
	{id: `errors-message-depth-unbounded`, file: `errors.go`, pkg: `.`,
		what: `the message search unbounded in depth`,
		from: `case len(raw) == 0 || depth > 3:`,
		to:   `case len(raw) == 0:`},
	{id: `errors-message-depth-plus-one`, file: `errors.go`, pkg: `.`,
		what: `the message search one level deeper`,
		from: `case len(raw) == 0 || depth > 3:`,
		to:   `case len(raw) == 0 || depth > 4:`},
	{id: `errors-message-parts`, file: `errors.go`, pkg: `.`,
		what: `more than five messages joined`,
		from: `			if len(parts) == 5 {`,
		to:   `			if len(parts) == 50 {`},
	{id: `errors-rate-limited-retry-after`, file: `errors.go`, pkg: `.`,
		what: `a Retry-After over the cap is not ErrRateLimited`,
		from: `return e.StatusCode == http.StatusTooManyRequests || e.overWait || !e.fromCall && e.RetryAfter > maxRetryAfter`,
		to:   `return e.StatusCode == http.StatusTooManyRequests`},
	{id: `errors-server-500`, file: `errors.go`, pkg: `.`,
		what: `a 500 is not ErrServer`,
		from: `		return e.StatusCode >= 500`,
		to:   `		return e.StatusCode > 500`},
	{id: `errors-body-raw`, file: `errors.go`, pkg: `.`,
		what: `Body kept unredacted`,
		from: `Body: red.cleanBytes(body, maxErrorBody),`,
		to:   `Body: body,`},
	{id: `errors-token-parts`, file: `redact.go`, pkg: `.`,
		what: `a token's parts are not looked for`,
		from: `	for _, part := range strings.Split(tok, ".") {
		r.add(part, "[redacted]")
	}`,
		to: ``},
	{id: `errors-query-values`, file: `redact.go`, pkg: `.`,
		what: `a query value, encoded, is not looked for`,
		from: `			r.add(url.QueryEscape(v), "[query]")
`,
		to: ``},
	{id: `errors-secret-headers-kept`, file: `redact.go`, pkg: `.`,
		what: `Authorization and cookies kept in a header`,
		from: `		if secretHeaders[http.CanonicalHeaderKey(k)] {`,
		to:   `		if false && secretHeaders[http.CanonicalHeaderKey(k)] {`},
	{id: `errors-header-count`, file: `redact.go`, pkg: `.`,
		what: `no bound on the number of header values`,
		from: `if fields == maxHeaderFields || size+len(name)+len(v) > maxHeaderBytes {`,
		to:   `if size+len(name)+len(v) > maxHeaderBytes {`},
	{id: `errors-header-value-uncut`, file: `redact.go`, pkg: `.`,
		what: `a header value not cut`,
		from: `			v = r.clean(v, maxHeaderValue)`,
		to:   `			v = r.redact(v)`},
	{id: `errors-min-secret`, file: `redact.go`, pkg: `.`,
		what: `secrets shorter than 40 bytes not looked for`,
		from: `	minSecret = 6
`,
		to: `	minSecret = 40
`},
	{id: `errors-jwt-shape`, file: `redact.go`, pkg: `.`,
		what: `a token shape redacted only when whole`,
		from: `	if strings.Contains(s, "eyJ") {`,
		to:   `	if strings.Contains(s, "eyJ") && strings.Count(s, ".") > 1 {`},
	{id: `errors-redact-then-cut`, file: `redact.go`, pkg: `.`,
		what: `cut before redaction`,
		from: `	return truncate(r.redact(s), n)`,
		to:   `	return r.redact(truncate(s, n))`},
	{id: `errors-redacted-is`, file: `errors.go`, pkg: `.`,
		what: `a redacted cause hides its sentinel`,
		from: `func (e *redactedError) Is(target error) bool { return errors.Is(e.cause, target) }`,
		to:   `func (e *redactedError) Is(target error) bool { return false }`},
	{id: `errors-truncate-off-by-one`, file: `errors.go`, pkg: `.`,
		what: `a text one byte over its bound kept`,
		from: `	if len(s) <= n {
		return s
	}`,
		to: `	if len(s) <= n+1 {
		return s
	}`},
	{id: `envelope-string-true`, file: `transport.go`, pkg: `.`,
		what: `success "true" not read`,
		from: "case \"true\", `\"true\"`:",
		to:   `case "true":`},
	{id: `envelope-no-success`, file: `envelope.go`, pkg: `.`,
		what: `a body without success taken for the envelope`,
		from: `	case "", "null":
		return &DecodeError{Endpoint: endpoint, Err: errNotEnvelope}`,
		to: `	case "", "null":
		return nil`},
	{id: `envelope-locate-shallow`, file: `envelope.go`, pkg: `.`,
		what: `the bad field's path not looked for`,
		from: `if depth > 64 || len(data) == 0 ||`,
		to:   `if depth > 0 || len(data) == 0 ||`},
	{id: `envelope-null-ok`, file: `transport.go`, pkg: `.`,
		what: `a null result reported as not null`,
		from: `		return true, env.Result == nil, nil`,
		to:   `		return true, false, nil`},
	{id: `values-hour-24`, file: `values.go`, pkg: `.`,
		what: `"24:00:00" accepted as a time`,
		from: `{11, 13, 0, 23}`,
		to:   `{11, 13, 0, 24}`},
	{id: `values-second-60`, file: `values.go`, pkg: `.`,
		what: `a second of 60 accepted`,
		from: `{17, 19, 0, 59}`,
		to:   `{17, 19, 0, 60}`},
	{id: `values-day-31`, file: `values.go`, pkg: `.`,
		what: `February 30 accepted`,
		from: `n[2] <= time.Date(n[0], time.Month(n[1])+1, 0, 0, 0, 0, 0, time.UTC).Day()`,
		to:   `n[2] <= 31`},
	{id: `values-offset-sign`, file: `values.go`, pkg: `.`,
		what: `a negative offset read as positive`,
		from: `		if s[20] == '-' {
			offset = -offset`,
		to: `		if s[20] == '+' {
			offset = -offset`},
	{id: `values-cents-fraction`, file: `values.go`, pkg: `.`,
		what: `a fraction of a cent accepted`,
		from: `	if len(fp) > 2 {
		return 0, fmt.Errorf`,
		to: `	if len(fp) > 3 {
		return 0, fmt.Errorf`},
	{id: `values-cents-min-int64`, file: `values.go`, pkg: `.`,
		what: `the smallest int64 of cents refused`,
		from: `	if err != nil {
		return 0, fmt.Errorf("acctadmin: amount %s is too large for int64 cents", m.text)`,
		to: `	if err != nil || n == math.MinInt64 {
		return 0, fmt.Errorf("acctadmin: amount %s is too large for int64 cents", m.text)`},
	{id: `values-money-digits`, file: `values.go`, pkg: `.`,
		what: `no bound on an amount's digits`,
		from: `if err != nil || len(intPart)+len(frac) > maxMoneyDigits || exp > maxMoneyDigits || exp < -maxMoneyDigits {`,
		to:   `if err != nil || exp > maxMoneyDigits || exp < -maxMoneyDigits {`},
	{id: `values-turnaround-many`, file: `values.go`, pkg: `.`,
		what: `an array of several turnarounds read as its first`,
		from: `			return fmt.Errorf("want one turnaround, got an array of %d", len(items))`,
		to:   `			return t.UnmarshalJSON(items[0])`},
	{id: `values-duration-wraps`, file: `values.go`, pkg: `.`,
		what: `Turnaround.Duration wraps`,
		from: `	case hours.Cmp(big.NewInt(maxHours)) > 0:
		return math.MaxInt64`,
		to: `	case hours.Cmp(big.NewInt(maxHours)) > 0 && false:
		return math.MaxInt64`},
	{id: `values-days-march`, file: `values.go`, pkg: `.`,
		what: `DaysUntil counts years from February`,
		from: `	m.Sub(m, big.NewInt(3))`,
		to:   `	m.Sub(m, big.NewInt(2))`},
	{id: `values-date-year-10000`, file: `values.go`, pkg: `.`,
		what: `a year past 9999 marshalled`,
		from: `	if d.Year < 0 || d.Year > 9999 {`,
		to:   `	if d.Year < 0 {`},
	{id: `values-date-empty-string`, file: `values.go`, pkg: `.`,
		what: `"" not the zero Date`,
		from: "if string(data) == \"null\" || string(data) == `\"\"` {",
		to:   `if string(data) == "null" {`},
	{id: `values-invalid-utf8`, file: `values.go`, pkg: `.`,
		what: `invalid UTF-8 passed on`,
		from: `if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {`,
		to:   `if bytes.IndexByte(inner, '\\') < 0 && (utf8.Valid(inner) || true) {`},
	{id: `values-describe-quotes`, file: `values.go`, pkg: `.`,
		what: `a bad value quoted in its error`,
		from: `		return "a string of " + byteCount(len(data)-2)`,
		to:   `		return "a string " + string(data)`},
	{id: `values-flexint-space`, file: `values.go`, pkg: `.`,
		what: `a numeric string with spaces refused as an integer`,
		from: `		s = strings.TrimSpace(u)
	}
	v, err := strconv.Atoi(s)`,
		to: `		s = u
	}
	v, err := strconv.Atoi(s)`},
	{id: `auth-escape-backslash`, file: `auth.go`, pkg: `.`,
		what: `the path claim is the escaped path, not the path`,
		from: `	path := req.URL.Path
`,
		to: `	path := req.URL.EscapedPath()
`},
	{id: `auth-sign-shifted`, file: `auth.go`, pkg: `.`,
		what: `the signature computed over the wrong bytes`,
		from: `	sig, _ := jwt.SigningMethodHS256.Sign(signing, s.secretKey)`,
		to:   `	sig, _ := jwt.SigningMethodHS256.Sign(signing[1:], s.secretKey)`},
	{id: `auth-empty-path`, file: `auth.go`, pkg: `.`,
		what: `an empty path signed as empty`,
		from: `	if path == "" {
		path = "/"
	}`,
		to: `	if path == "" {
		path = ""
	}`},
	{id: `auth-blank-key`, file: `auth.go`, pkg: `.`,
		what: `a blank access key accepted`,
		from: `	if strings.TrimSpace(accessKey) == "" {`,
		to:   `	if accessKey == "" {`},
	{id: `pull-unfinished-reversed`, file: `pagination.go`, pkg: `.`,
		what: `PullError.Unfinished in reverse order`,
		from: `slices.SortFunc(p.failed, func(a, b *pullJob) int { return a.seq - b.seq })`,
		to:   `slices.SortFunc(p.failed, func(a, b *pullJob) int { return b.seq - a.seq })`},
	{id: `all-paging-ignored-quiet`, file: `pagination.go`, pkg: `.`,
		what: `All ends quietly on an API that ignores the offset`,
		from: `		if n >= l.limit && !l.unpaged {
			return true, ErrPagingIgnored`,
		to: `		if false {
			return true, ErrPagingIgnored`},
	{id: `walk-ignored-short-page`, file: `internal/paging/walk.go`, pkg: `.`,
		what: `a short page repeated taken for ignored paging`,
		from: `	case w.answerRepeats >= IgnoredAfter && len(items) >= w.Limit:`,
		to:   `	case w.answerRepeats >= IgnoredAfter:`},
	{id: `walk-passed-any-seq`, file: `internal/paging/walk.go`, pkg: `.`,
		what: `a row handed out later taken as passed over`,
		from: `		case inRun && h.until >= 0 && h.until < w.sent:`,
		to:   `		case inRun && h.until >= 0:`},
	{id: `walk-ignored-after-30`, file: `internal/paging/walk.go`, pkg: `.`,
		what: `an API that ignores the offset read thirty times`,
		from: `const IgnoredAfter = 3`,
		to:   `const IgnoredAfter = 30`},
	{id: `walk-one-pass`, file: `internal/paging/walk.go`, pkg: `.`,
		what: `a shrinking listing walked once, whatever moved`,
		from: `	if !w.Shrinks {
		return StepDone
	}`,
		to: `	if true {
		return StepDone
	}`},
	{id: `webhook-access-key-ignored`, file: `webhook/verifier.go`, pkg: `./webhook`,
		what: `a wrong access_key accepted`,
		from: `	if !ok || subtle.ConstantTimeCompare([]byte(s), []byte(want)) != 1 {`,
		to:   `	if !ok || subtle.ConstantTimeCompare([]byte(s), []byte(want)) > 1 {`},
	{id: `webhook-any-secret`, file: `webhook/verifier.go`, pkg: `./webhook`,
		what: `a signature checked against no key`,
		from: `		if pt.method.Verify(pt.signed, pt.signature, key) == nil {`,
		to:   `		if pt.method.Verify(pt.signed, pt.signature, key) == nil || len(v.keys()) > 1 {`},
	{id: `webhook-in-progress-acked`, file: `webhook/verifier.go`, pkg: `./webhook`,
		what: `a delivery of an event in progress acknowledged`,
		from: `	case ClaimInProgress:
		return ErrInProgress`,
		to: `	case ClaimInProgress:
		return ErrReplayed`},
	{id: `webhook-unknown-state-new`, file: `webhook/verifier.go`, pkg: `./webhook`,
		what: `an unknown claim state taken for new`,
		from: `		return fmt.Errorf("webhook: replay cache: claim answered %d, not a claim state", int(state))`,
		to:   `		return nil`},
	{id: `webhook-expired-not-401`, file: `webhook/handler.go`, pkg: `./webhook`,
		what: `an expired token not refused as 401`,
		from: `		errors.Is(err, ErrExpired), errors.Is(err, ErrNotYetValid),`,
		to:   `		errors.Is(err, ErrNotYetValid),`},
	{id: `webhook-failure-committed`, file: `webhook/handler.go`, pkg: `./webhook`,
		what: `a failed fn committed as done`,
		from: `	default:
		v.settle(settleCtx, ev, leaseEnd, v.Forget)
		return err`,
		to: `	default:
		v.settle(settleCtx, ev, leaseEnd, v.Commit)
		return err`},
	{id: `webhook-no-retry-after`, file: `webhook/handler.go`, pkg: `./webhook`,
		what: `an event in progress answered without Retry-After`,
		from: `			case errors.Is(err, ErrInProgress):
				w.Header().Set("Retry-After", strconv.Itoa(v.retryAfter()))`,
		to: `			case errors.Is(err, ErrInProgress):
				w.Header().Set("X-Retry-After", strconv.Itoa(v.retryAfter()))`},
	{id: `webhook-cache-busy-expiry`, file: `webhook/replay.go`, pkg: `./webhook`,
		what: `an in-progress mark never expires`,
		from: `	if m, ok := c.busy[key]; ok && now.Before(m.expires) && m.owner != owner {`,
		to:   `	if m, ok := c.busy[key]; ok && m.owner != owner {`},
	{id: `webhook-release-any-owner`, file: `webhook/replay.go`, pkg: `./webhook`,
		what: `a release drops another owner's mark`,
		from: `	if m, ok := c.busy[key]; ok && m.owner == owner {`,
		to:   `	if _, ok := c.busy[key]; ok {`},
	{id: `redis-type-is-new`, file: `mailroom/internal/redislease/redislease.go`, pkg: `./mailroom/internal/redislease`,
		what: `a reply of another type taken for new`,
		from: `		return false, "", fmt.Errorf("answer of type %T, not a string", reply)`,
		to:   `		return true, "", nil`},
	{id: `redis-unknown-value-done`, file: `webhook/redisreplay/redisreplay.go`, pkg: `./webhook/redisreplay`,
		what: `a value it did not write taken for done`,
		from: `		return 0, fmt.Errorf("the key holds a value of %d bytes this package did not write", len(old))`,
		to:   `		return webhook.ClaimDone, nil`},
	{id: `redis-busy-is-done`, file: `webhook/redisreplay/redisreplay.go`, pkg: `./webhook/redisreplay`,
		what: `an in-progress mark taken for done`,
		from: `	case strings.HasPrefix(old, busyPrefix):
		return webhook.ClaimInProgress, nil`,
		to: `	case strings.HasPrefix(old, busyPrefix):
		return webhook.ClaimDone, nil`},
	{id: `redis-commit-reply-unchecked`, file: `webhook/redisreplay/redisreplay.go`, pkg: `./webhook/redisreplay`,
		what: `a Commit answered other than OK taken for done`,
		from: `		if s, ok := reply.(string); !ok || s != "OK" {`,
		to:   `		if s, ok := reply.(string); !ok && s != "OK" {`},
	{id: `redis-ctx-ignored`, file: `mailroom/internal/redislease/redislease.go`, pkg: `./mailroom/internal/redislease`,
		what: `a call made with an ended context`,
		from: `	if err := ctx.Err(); err != nil {
		return err`,
		to: `	if err := ctx.Err(); err != nil && false {
		return err`},
}
