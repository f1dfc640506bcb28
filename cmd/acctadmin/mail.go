package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/acctadmin/acctadmin-go/mailroom"
	"github.com/acctadmin/acctadmin-go/webhook"
	"github.com/google/uuid"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

func (a *app) mailCommand() *cobra.Command {
	var workers int
	var skipLocked bool // accepted, and the default
	var mode pullMode
	pull := &cobra.Command{
		Use:   "pull DIR",
		Short: "Save every unread document into DIR, exactly once",
		Long: `Save every unread document of the account into the folder DIR as PDF
files, each exactly once. The payment-locked ones are left unread, unless
--unlock-with pays for them.

Saving a document marks it read in the account, so each run sees only what
is still unread. Before each download acctadmin notes it in the folder
(DIR/.mailroom/pending) and clears the note once the file is saved whole;
so a run stopped by Ctrl-C, or killed, loses nothing: the next run fetches
again what was noted, then the unread rest, and downloads nothing already
saved.

Files get names a person can read that still hold the document's id: the
document's date, company and type, then its id, as
"2026-05-30 Acme Widgets LLC - Annual Report - <id>.pdf".

Payment-locked documents (received for a company without an active
registered-agent service; the provider refuses their download until they
are paid for) are left unread: they are listed once at the end, with their
date, company, type, id and price, and never retried in a loop. Unlock them
with acctadmin documents unlock, then run mail pull again to save them.
(--skip-payment-locked, which asked for this before it was the default, is
still accepted and does nothing.)

--unlock-with CARD_ID (a card from acctadmin cards list) pays for them in
the same run and saves them, within two ceilings, both required: no
document above --max-each, and no more than --max-total in all per run.
Each document is paid for at most once, across runs: the attempt is noted
in the folder (DIR/.mailroom/unlocks) before paying, and a document noted
there is never paid for again, even when the answer never came (see it
with acctadmin documents get ID; delete its note to let mail pull try once
more). What the ceilings leave locked is listed with its price, and the
next run pays for more, within the ceilings again.

On a terminal a progress bar shows the documents saved, the bytes and the
rate; otherwise a line is printed per document. Ctrl-C stops the downloads
cleanly, prints what was saved, and exits 130.

For cron: --quiet prints one line per document unlocked and per document
saved and nothing else, so a night with no new mail prints nothing and cron
mails only news; --fail-if-locked exits 6 while payment-locked mail waits,
with one line on standard error that says how many and what unlocking them
costs. --json prints, instead of the lines, one JSON object at the end: the
documents saved, the payment-locked ones left with their prices and the
total, the documents unlocked with what each was charged, and what was
spent.`,
		Example: "  acctadmin mail pull ./mail\n  acctadmin mail pull /srv/mail --workers 8\n" +
			"  acctadmin mail pull ./mail --unlock-with CARD_ID --max-each 30 --max-total 60\n" +
			"  0 6 * * * acctadmin mail pull ~/mail --quiet --fail-if-locked   # a crontab line\n" +
			"  0 6 * * * acctadmin mail pull ~/mail --quiet --unlock-with CARD_ID --max-each 30 --max-total 60",
		Args: exactArgs(1),
	}
	pull.Flags().IntVar(&workers, "workers", mailroom.DefaultWorkers, "documents downloaded at once (1 to 32)")
	pull.Flags().BoolVar(&skipLocked, "skip-payment-locked", false, "leave payment-locked documents unread (the default)")
	_ = pull.Flags().MarkHidden("skip-payment-locked")
	pull.Flags().BoolVar(&mode.quiet, "quiet", false, "print a line per document saved, nothing else (for cron)")
	pull.Flags().BoolVar(&mode.failIfLocked, "fail-if-locked", false, "exit 6 while payment-locked documents wait")
	var card, maxEach, maxTotal string
	pull.Flags().StringVar(&card, "unlock-with", "", "pay for payment-locked documents with the stored card `CARD_ID` (acctadmin cards list); needs --max-each and --max-total")
	pull.Flags().StringVar(&maxEach, "max-each", "", "with --unlock-with: pay for no document above `AMOUNT` (as 30 or 30.00)")
	pull.Flags().StringVar(&maxTotal, "max-total", "", "with --unlock-with: pay no more than `AMOUNT` in all in one run")
	pull.RunE = func(cmd *cobra.Command, args []string) error {
		if workers < 1 || workers > 32 {
			return usageErrorf("--workers must be from 1 to 32, got %d", workers)
		}
		if skipLocked {
			fmt.Fprintln(a.stderr, "acctadmin: --skip-payment-locked is the default now; the flag does nothing")
		}
		if mode.quiet && a.wantJSON() {
			return usageErrorf("--quiet and --json do not go together: --json prints one object at the end")
		}
		f := cmd.Flags()
		var err error
		mode.unlock, err = parseUnlock(f.Changed("unlock-with"), f.Changed("max-each"), f.Changed("max-total"), card, maxEach, maxTotal)
		if err != nil {
			return err
		}
		if _, err := a.checkJQ(); err != nil {
			return err
		}
		mode.json = a.wantJSON()
		return a.mailPull(args[0], workers, mode)
	}
	return group("mail", "Save the account's mail", "  acctadmin mail pull ./mail", pull)
}

// pullMode is how mail pull reports: quiet (a line per document saved,
// nothing else), json (one object at the end), and whether payment-locked
// documents left waiting end it with exit 6; and what it may pay for
// (unlock, nil for nothing).
type pullMode struct {
	quiet, json, failIfLocked bool
	unlock                    *unlockPlan
}

// unlockPlan is what mail pull --unlock-with may pay: with card, no
// document above each, and no more than total in one run.
type unlockPlan struct {
	card        uuid.UUID
	each, total acctadmin.Money
}

// parseUnlock reads --unlock-with, --max-each and --max-total (given says
// which were on the command line): nil when none was, and an exit-2 error
// for a card without both ceilings, a ceiling without a card, an amount
// that is not one above zero, or a ceiling per document over the total.
func parseUnlock(cardGiven, eachGiven, totalGiven bool, card, each, total string) (*unlockPlan, error) {
	if !cardGiven {
		if eachGiven || totalGiven {
			return nil, usageErrorf("--max-each and --max-total bound what --unlock-with CARD_ID pays: give the card too")
		}
		return nil, nil
	}
	if !eachGiven || !totalGiven {
		return nil, usageErrorf("--unlock-with pays only within both ceilings: give --max-each AMOUNT (per document) and --max-total AMOUNT (per run)")
	}
	id, err := parseID("card", card)
	if err != nil {
		return nil, err
	}
	p := &unlockPlan{card: id}
	for _, m := range []struct {
		flag, text string
		into       *acctadmin.Money
	}{{"--max-each", each, &p.each}, {"--max-total", total, &p.total}} {
		v, err := acctadmin.ParseMoney(m.text)
		if err != nil || v.Cmp(acctadmin.Money{}) <= 0 {
			return nil, usageErrorf("%s %q: want an amount above zero, such as 30 or 30.00", m.flag, m.text)
		}
		*m.into = v
	}
	if p.each.Cmp(p.total) > 0 {
		return nil, usageErrorf("--max-each %s is over --max-total %s: a run never pays more than the total; give --max-each at most %s", money(p.each), money(p.total), money(p.total))
	}
	return p, nil
}

// pullSummary is what mail pull --json prints.
type pullSummary struct {
	Dir   string      `json:"dir"`
	Saved []savedFile `json:"saved"`
	// Locked are the payment-locked documents left unread, LockedTotal
	// what unlocking them all costs.
	Locked      []lockedDoc     `json:"locked"`
	LockedTotal acctadmin.Money `json:"locked_total"`
	// Unlocked are the documents paid for in this run (--unlock-with),
	// each with what it was charged, and Spent what they cost in all.
	Unlocked    []unlockedDoc   `json:"unlocked"`
	Spent       acctadmin.Money `json:"spent"`
	Redownloads int64           `json:"redownloads"`
	Error       string          `json:"error,omitempty"`
}

// unlockedDoc is a document mail pull paid for, and what it was charged.
type unlockedDoc struct {
	ID          uuid.UUID       `json:"id"`
	Date        string          `json:"date"`
	CompanyName string          `json:"company_name"`
	Type        string          `json:"type"`
	Amount      acctadmin.Money `json:"amount"`
}

// savedFile is a document mail pull saved.
type savedFile struct {
	ID    uuid.UUID `json:"id"`
	Name  string    `json:"name"`
	Bytes int64     `json:"bytes"`
}

// lockedDoc is a payment-locked document and its price.
type lockedDoc struct {
	ID          uuid.UUID       `json:"id"`
	Date        string          `json:"date"`
	CompanyName string          `json:"company_name"`
	Type        string          `json:"type"`
	UnlockPrice acctadmin.Money `json:"unlock_price"`
	// Reason says why --unlock-with left it locked.
	Reason string `json:"reason,omitempty"`
}

// mailPull saves the unread mail into dir, all but the payment-locked
// documents, which it lists at the end.
func (a *app) mailPull(dir string, workers int, mode pullMode) error {
	c, err := a.client()
	if err != nil {
		return err
	}
	_, secret, _ := a.keys()
	// The room wants a verifier for the callbacks it may receive; a pull
	// receives none, but the verifier is the account's all the same.
	v, err := webhook.NewVerifier([]byte(secret))
	if err != nil {
		return usageError{err}
	}
	logLevel := slog.LevelWarn
	if a.debug {
		logLevel = slog.LevelDebug
	}
	// The room logs each payment-locked document it leaves unread;
	// mail pull lists them itself, at the end, so those lines are left out.
	logger := slog.New(lockedNotLogged{slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: logLevel})})

	p := newPullProgress(a, dir, mode)
	defer p.finish()
	store := &watchedStore{Store: mailroom.Dir(dir), progress: p}
	opts := []mailroom.Option{mailroom.WithWorkers(workers), mailroom.WithLogger(logger)}
	var keptMu sync.Mutex
	kept := map[uuid.UUID]acctadmin.Document{}
	if u := mode.unlock; u != nil {
		// The room pays, within both ceilings, each document at most once
		// (its records in the folder), and says what it left locked.
		opts = append(opts, mailroom.WithUnlock(u.card, u.each), mailroom.WithUnlockBudget(u.total))
	} else {
		opts = append(opts, mailroom.WithKeepOut(func(d acctadmin.Document) bool {
			if !d.PaymentLocked {
				return false
			}
			keptMu.Lock()
			defer keptMu.Unlock()
			kept[d.ID] = d
			return true
		}))
	}
	room, err := mailroom.New(c, v, store, opts...)
	if err != nil {
		return err
	}
	start := time.Now()
	err = room.Pull(a.ctx)
	p.finish()
	st := room.Stats()
	saved, bytes := p.saved.Load(), p.bytes.Load()
	summary := fmt.Sprintf("%d document(s) saved into %s (%s in %s)", saved, dir, sizeString(bytes), time.Since(start).Round(time.Millisecond))
	if last := p.lastName(); last != "" {
		summary += ", the last as " + last
	}
	if st.Redownloads > 0 {
		summary += fmt.Sprintf(", %d fetched again from the journal", st.Redownloads)
	}
	last := room.LastPull()
	var waiting []mailroom.LockedDocument
	if mode.unlock != nil {
		waiting = last.Locked
	} else {
		keptMu.Lock()
		for _, d := range kept {
			waiting = append(waiting, mailroom.LockedDocument{Document: d})
		}
		keptMu.Unlock()
	}
	sortLocked(waiting)
	sort.SliceStable(last.Unlocked, func(i, j int) bool {
		return last.Unlocked[i].Document.CreatedAt.Before(last.Unlocked[j].Document.CreatedAt)
	})
	locked := lockedList(waiting, dir)
	if mode.json {
		defer a.printPullSummary(dir, p, waiting, last, st.Redownloads, err)
	} else {
		// A line per document paid for, --quiet too: what cron mails.
		for _, u := range last.Unlocked {
			d := u.Document
			fmt.Fprintf(a.stdout, "unlocked %s  %s  %s  %s  %s\n", day(d.CreatedAt), d.CompanyName, d.Type, d.ID, money(u.Amount))
		}
		if mode.unlock != nil && !mode.quiet {
			summary += fmt.Sprintf("; %d document(s) unlocked for %s (at most %s each, %s in all)",
				len(last.Unlocked), money(last.Spent), money(mode.unlock.each), money(mode.unlock.total))
		}
	}
	// An unlock whose answer never came is not tried again: say how to
	// see whether it went through (on standard error, --quiet too).
	for _, l := range waiting {
		if strings.HasPrefix(l.Reason, unknownUnlock) {
			fmt.Fprintf(a.stderr, "acctadmin: no answer came to the payment for document %s; it is not paid for again: see whether it is still payment locked with `acctadmin documents get %s`; once it is not, `acctadmin mail pull %s` saves it\n", l.Document.ID, l.Document.ID, dir)
		}
	}
	if mode.quiet || mode.json {
		locked = ""
		summary = ""
	}
	defer fmt.Fprint(a.stdout, locked)
	if err != nil && a.ctx.Err() != nil {
		printSummary(a, "interrupted: ", summary)
		return exitError{130, fmt.Sprintf("mail pull interrupted; run `acctadmin mail pull %s` again to pick up where it left off", dir)}
	}
	if err != nil {
		printSummary(a, "stopped: ", summary)
		var pe *acctadmin.PullError
		if errors.As(err, &pe) && len(pe.Unfinished) > 0 {
			return withAdvice(err, fmt.Sprintf("the journal in %s keeps the %d unfinished document(s); run the same command again to fetch them", dir, len(pe.Unfinished)))
		}
		return withAdvice(err, "run the same command again: documents saved are not downloaded again")
	}
	printSummary(a, "", summary)
	if mode.failIfLocked && len(waiting) > 0 {
		total := acctadmin.Money{}
		for _, d := range waiting {
			total = total.Add(d.Document.UnlockPrice)
		}
		return exitError{6, fmt.Sprintf("%d payment-locked document(s) wait, %s to unlock them all: `acctadmin documents unlock ID... --card CARD_ID` (their ids: `acctadmin mail pull %s --json`)", len(waiting), money(total), dir)}
	}
	return nil
}

// unknownUnlock begins the mail room's reason for a document whose
// unlock got no answer (mailroom.LockedDocument.Reason).
const unknownUnlock = "the unlock's outcome is unknown"

// lockedNotLogged is the room's log without its line for each
// payment-locked document it leaves unread, which mail pull lists itself.
type lockedNotLogged struct{ slog.Handler }

// lockedLine is the message of the room's line for a payment-locked
// document left unread.
const lockedLine = "mailroom: document is payment-locked; left unread"

// Handle implements slog.Handler.
func (h lockedNotLogged) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == lockedLine {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h lockedNotLogged) WithAttrs(attrs []slog.Attr) slog.Handler {
	return lockedNotLogged{h.Handler.WithAttrs(attrs)}
}

// WithGroup implements slog.Handler.
func (h lockedNotLogged) WithGroup(name string) slog.Handler {
	return lockedNotLogged{h.Handler.WithGroup(name)}
}

// printSummary prints the summary line of a pull after prefix, unless it
// is "" (--quiet and --json print none).
func printSummary(a *app, prefix, summary string) {
	if summary != "" {
		fmt.Fprintln(a.stdout, prefix+summary)
	}
}

// sortLocked puts the payment-locked documents oldest first.
func sortLocked(docs []mailroom.LockedDocument) {
	sort.Slice(docs, func(i, j int) bool {
		a, b := docs[i].Document, docs[j].Document
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		return a.ID.String() < b.ID.String()
	})
}

// printPullSummary prints mail pull --json's object.
func (a *app) printPullSummary(dir string, p *pullProgress, waiting []mailroom.LockedDocument, last mailroom.PullStats, redownloads int64, err error) {
	s := pullSummary{Dir: dir, Saved: p.files(), Locked: []lockedDoc{}, Unlocked: []unlockedDoc{}, Redownloads: redownloads,
		LockedTotal: acctadmin.MoneyFromCents(0), Spent: acctadmin.MoneyFromCents(0)}
	for _, l := range waiting {
		d := l.Document
		s.Locked = append(s.Locked, lockedDoc{ID: d.ID, Date: day(d.CreatedAt), CompanyName: d.CompanyName, Type: d.Type, UnlockPrice: d.UnlockPrice, Reason: l.Reason})
		s.LockedTotal = s.LockedTotal.Add(d.UnlockPrice)
	}
	for _, u := range last.Unlocked {
		d := u.Document
		s.Unlocked = append(s.Unlocked, unlockedDoc{ID: d.ID, Date: day(d.CreatedAt), CompanyName: d.CompanyName, Type: d.Type, Amount: u.Amount})
		s.Spent = s.Spent.Add(u.Amount)
	}
	if err != nil {
		_, s.Error = describe(err)
	}
	b, merr := json.Marshal(s)
	if merr != nil {
		fmt.Fprintf(a.stderr, "acctadmin: %v\n", merr)
		return
	}
	_ = a.printJSON(b)
}

// lockedList lists the payment-locked documents a pull left unread (in
// the order given), or is "" when there are none.
func lockedList(docs []mailroom.LockedDocument, dir string) string {
	if len(docs) == 0 {
		return ""
	}
	var b strings.Builder
	total := acctadmin.Money{}
	fmt.Fprintf(&b, "%d document(s) are payment-locked and were left unread:\n", len(docs))
	for _, l := range docs {
		d := l.Document
		fmt.Fprintf(&b, "  %s  %s  %s  %s  %s\n", day(d.CreatedAt), d.CompanyName, d.Type, d.ID, money(d.UnlockPrice))
		total = total.Add(d.UnlockPrice)
	}
	fmt.Fprintf(&b, "unlocking them costs %s: `acctadmin documents unlock ID... --card CARD_ID` (the cards: `acctadmin cards list`), then run `acctadmin mail pull %s` again\n", money(total), dir)
	return b.String()
}

// sizeString writes a byte count for people.
func sizeString(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// pullProgress shows a pull: a bar on a terminal, a line per document
// otherwise.
type pullProgress struct {
	a     *app
	dir   string
	saved atomic.Int64
	// bytes counts the bytes of the documents saved.
	bytes atomic.Int64

	// quiet prints a line per document and no bar; json prints nothing
	// and keeps the documents saved for the summary.
	quiet, json bool

	mu  sync.Mutex
	bar *progressbar.ProgressBar
	// last is the name of the file saved last.
	last string
	// savedFiles are the documents saved, for --json.
	savedFiles []savedFile
}

func newPullProgress(a *app, dir string, mode pullMode) *pullProgress {
	p := &pullProgress{a: a, dir: dir, quiet: mode.quiet, json: mode.json}
	// The bar when both streams are a terminal: the lines go to stdout
	// when it is a file or a pipe, and the bar's escapes stay out of a
	// stderr that is one. --quiet and --json show none.
	if isTerminal(a.stdout) && isTerminal(a.stderr) && !mode.quiet && !mode.json {
		p.bar = progressbar.NewOptions64(-1,
			progressbar.OptionSetWriter(a.stderr),
			progressbar.OptionSetDescription("0 saved"),
			progressbar.OptionShowBytes(true),
			progressbar.OptionShowTotalBytes(true),
			progressbar.OptionSetWidth(10),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionSetRenderBlankState(true),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// read counts n bytes read from a document.
func (p *pullProgress) read(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Add(n)
	}
}

// savedDoc reports a document saved whole, of n bytes.
func (p *pullProgress) savedDoc(d acctadmin.Document, n int64) {
	count := p.saved.Add(1)
	total := p.bytes.Add(n)
	name := mailroom.FileName(d)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = name
	if p.json {
		p.savedFiles = append(p.savedFiles, savedFile{ID: d.ID, Name: name, Bytes: n})
		return
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("%d saved, %s", count, sizeString(total)))
		return
	}
	fmt.Fprintf(p.a.stdout, "saved %s  (%d bytes)\n", name, n)
}

// files are the documents saved, for --json.
func (p *pullProgress) files() []savedFile {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]savedFile{}, p.savedFiles...)
}

// lastName is the name of the file saved last, or "".
func (p *pullProgress) lastName() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// finish takes the bar off the terminal; it may be called twice.
func (p *pullProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
}

// watchedStore is the room's store (mailroom.Dir) with the pull's progress
// watching each save. It passes on Dir's journal and its Check, so that the
// room keeps its journal in the folder, as with Dir itself.
type watchedStore struct {
	mailroom.Store
	progress *pullProgress
}

// Save implements mailroom.Store.
func (s *watchedStore) Save(ctx context.Context, d acctadmin.Document, r io.Reader) error {
	cr := &countingReader{r: r, progress: s.progress}
	err := s.Store.Save(ctx, d, cr)
	if err == nil {
		s.progress.savedDoc(d, cr.n)
	}
	return err
}

// journal is the store's journal.
func (s *watchedStore) journal() mailroom.Journal {
	j, _ := s.Store.(mailroom.Journal)
	return j
}

// Begin implements mailroom.Journal.
func (s *watchedStore) Begin(ctx context.Context, id uuid.UUID) (bool, error) {
	j := s.journal()
	if j == nil {
		return false, errors.New("the folder store keeps no journal")
	}
	return j.Begin(ctx, id)
}

// End implements mailroom.Journal.
func (s *watchedStore) End(ctx context.Context, id uuid.UUID) error {
	j := s.journal()
	if j == nil {
		return errors.New("the folder store keeps no journal")
	}
	return j.End(ctx, id)
}

// Pending implements mailroom.Journal.
func (s *watchedStore) Pending(ctx context.Context) ([]uuid.UUID, error) {
	j := s.journal()
	if j == nil {
		return nil, errors.New("the folder store keeps no journal")
	}
	return j.Pending(ctx)
}

// BeginUnlock implements mailroom.UnlockRecorder with the folder's
// records, so that each document is paid for at most once across runs.
func (s *watchedStore) BeginUnlock(ctx context.Context, id uuid.UUID) (bool, error) {
	u, ok := s.Store.(mailroom.UnlockRecorder)
	if !ok {
		return false, errors.New("the folder store records no unlocks")
	}
	return u.BeginUnlock(ctx, id)
}

// Check tells whether the store can write again, as Dir's Check does.
func (s *watchedStore) Check(ctx context.Context) error {
	if c, ok := s.Store.(interface{ Check(context.Context) error }); ok {
		return c.Check(ctx)
	}
	return nil
}

// countingReader counts the bytes of a document as the store reads them.
type countingReader struct {
	r        io.Reader
	n        int64
	progress *pullProgress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	c.progress.read(n)
	return n, err
}
