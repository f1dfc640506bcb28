package main

// The mutants of the mail room's one callback URL: the events handed on
// to WithEvents, the 503 with Retry-After for a document being saved by
// another delivery, and the room that only pulls, without a verifier.
func init() {
	const roomTests = `TestHandler|TestAPullOnlyRoomNeedsNoVerifier|TestNewRefusesBadOptions|Example`
	mutants = append(mutants,
		mutant{id: `mailroom-events-not-handed-on`, file: `mailroom/room.go`, pkg: `./mailroom`, run: roomTests,
			what: `the events other than new-document are acknowledged without reaching WithEvents`,
			from: `			return r.cfg.events(ctx, ev)`,
			to:   `			return nil`},
		mutant{id: `mailroom-events-failure-acknowledged`, file: `mailroom/room.go`, pkg: `./mailroom`, run: roomTests,
			what: `a failure of WithEvents' function is answered 200, so the event is lost`,
			from: `			return r.cfg.events(ctx, ev)`,
			to: `			_ = r.cfg.events(ctx, ev)
			return nil`},
		mutant{id: `mailroom-events-take-new-documents`, file: `mailroom/room.go`, pkg: `./mailroom`, run: roomTests,
			what: `with WithEvents, new-document events are handed on instead of saved`,
			from: `		if ev.Name != webhook.EventNewDocument {`,
			to:   `		if ev.Name != webhook.EventNewDocument || r.cfg.events != nil {`},
		mutant{id: `mailroom-events-busy-is-500`, file: `mailroom/room.go`, pkg: `./mailroom`, run: roomTests,
			what: `a document being saved by another delivery is answered 500, without Retry-After`,
			from: `var errBusy = fmt.Errorf("mailroom: document in progress elsewhere: %w", webhook.ErrInProgress)`,
			to:   `var errBusy = fmt.Errorf("mailroom: document in progress elsewhere: %w", errors.New("busy"))`},
		mutant{id: `mailroom-events-url-without-verifier`, file: `mailroom/room.go`, pkg: `./mailroom`, run: roomTests,
			what: `New takes WithCallbackURL for a room without a verifier, which the API would post to in vain`,
			from: `	case v == nil && cfg.callbackURL != "":`,
			to:   `	case v == nil && cfg.callbackURL == "-":`},
		mutant{id: `mailroom-events-pull-only-refused`, file: `mailroom/room.go`, pkg: `./mailroom`, run: roomTests,
			what: `New refuses a nil verifier, so a room that only pulls needs a secret`,
			from: `	case v == nil && cfg.callbackURL != "":`,
			to:   `	case v == nil:`},
		mutant{id: `mailroom-events-no-verifier-acknowledged`, file: `mailroom/room.go`, pkg: `./mailroom`, run: roomTests,
			what: `the handler of a room without a verifier acknowledges callbacks it cannot verify`,
			from: `			http.Error(w, http.StatusText(http.StatusInternalServerError), http.StatusInternalServerError)`,
			to:   `			w.WriteHeader(http.StatusOK)`},
		mutant{id: `mailroom-events-webhook-in-progress-500`, file: `webhook/handler.go`, pkg: `./webhook`, run: `TestHandler`,
			what: `a function's ErrInProgress is answered 500 like any failure`,
			from: `			case errors.Is(err, ErrInProgress):
				// fn says another delivery is doing its work.`,
			to: `			case errors.Is(err, ErrInProgress) && false:
				// fn says another delivery is doing its work.`},
		mutant{id: `mailroom-events-webhook-no-retry-after`, file: `webhook/handler.go`, pkg: `./webhook`, run: `TestHandler`,
			what: `a function's ErrInProgress is answered 503 without Retry-After`,
			from: `				// fn says another delivery is doing its work.
				w.Header().Set("Retry-After", strconv.Itoa(v.retryAfter()))`,
			to: `				// fn says another delivery is doing its work.`},
	)
}
