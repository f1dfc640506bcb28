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
		Long: `Save every unread document of the account, but the payment-locked ones, into
the folder DIR as PDF files, each exactly once, with the mail room (package
mailroom): its folder store (mailroom.Dir) and its journal, on
Documents.Pull.

Downloading a document marks it read, so each run sees only what is still
unread. Before each download the room records it in a journal inside DIR
(DIR/.mailroom/pending), and ends the record once the file is saved whole;
so a run stopped by Ctrl-C, or killed, loses nothing: the next run fetches
again by id what the journal holds, then pulls the unread rest, and
downloads nothing already saved.

Files get names a person can read that still hold the document's id, the
names mailroom.Dir gives them: the document's date, company and type, then
its id, as "2026-05-30 Acme Widgets LLC - Annual Report - <id>.pdf".

Payment-locked documents (received for a company without an active
registered-agent service; the API refuses their download until they are
paid for) are left out of the pull and stay unread (the mail room's
WithKeepOut): they are listed once at the end, with their date, company,
type, id and price, and never retried in a loop. Unlock them with
acctadmin documents unlock, then run mail pull again to save them.
(--skip-payment-locked, which asked for this before it was the default, is
still accepted and does nothing.)

On a terminal a progress bar shows the documents saved, the bytes and the
rate; otherwise a line is printed per document. Ctrl-C stops the downloads
cleanly, prints what was saved, and exits 130.

For cron: --quiet prints one line per document saved and nothing else, so
a night with no new mail prints nothing and cron mails only news;
--fail-if-locked exits 6 while payment-locked mail waits, with one line on
standard error that says how many and what unlocking them costs. --json
prints, instead of the lines, one JSON object at the end: the documents
saved, the payment-locked ones left with their prices and the total, and
the documents unlocked (none: paying from mail pull is not here yet).`,
		Example: "  acctadmin mail pull ./mail\n  acctadmin mail pull /srv/mail --workers 8\n" +
			"  0 6 * * * acctadmin mail pull ~/mail --quiet --fail-if-locked   # a crontab line",
		Args: exactArgs(1),
	}
	pull.Flags().IntVar(&workers, "workers", mailroom.DefaultWorkers, "documents downloaded at once (1 to 32)")
	pull.Flags().BoolVar(&skipLocked, "skip-payment-locked", false, "leave payment-locked documents unread (the default)")
	_ = pull.Flags().MarkHidden("skip-payment-locked")
	pull.Flags().BoolVar(&mode.quiet, "quiet", false, "print a line per document saved, nothing else (for cron)")
	pull.Flags().BoolVar(&mode.failIfLocked, "fail-if-locked", false, "exit 6 while payment-locked documents wait")
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
// documents left waiting end it with exit 6.
type pullMode struct {
	quiet, json, failIfLocked bool
}

// pullSummary is what mail pull --json prints.
type pullSummary struct {
	Dir   string      `json:"dir"`
	Saved []savedFile `json:"saved"`
	// Locked are the payment-locked documents left unread, LockedTotal
	// what unlocking them all costs.
	Locked      []lockedDoc     `json:"locked"`
	LockedTotal acctadmin.Money `json:"locked_total"`
	// Unlocked are the documents paid for in this run: none yet.
	Unlocked    []lockedDoc `json:"unlocked"`
	Redownloads int64       `json:"redownloads"`
	Error       string      `json:"error,omitempty"`
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
	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: logLevel}))

	p := newPullProgress(a, dir, mode)
	defer p.finish()
	store := &watchedStore{Store: mailroom.Dir(dir), progress: p}
	opts := []mailroom.Option{mailroom.WithWorkers(workers), mailroom.WithLogger(logger)}
	var keptMu sync.Mutex
	kept := map[uuid.UUID]acctadmin.Document{}
	opts = append(opts, mailroom.WithKeepOut(func(d acctadmin.Document) bool {
		if !d.PaymentLocked {
			return false
		}
		keptMu.Lock()
		defer keptMu.Unlock()
		kept[d.ID] = d
		return true
	}))
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
	keptMu.Lock()
	locked := lockedList(kept, dir)
	waiting := sortedLocked(kept)
	keptMu.Unlock()
	if mode.quiet || mode.json {
		locked = ""
		summary = ""
	}
	if mode.json {
		defer a.printPullSummary(dir, p, waiting, st.Redownloads, err)
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
			total = total.Add(d.UnlockPrice)
		}
		return exitError{6, fmt.Sprintf("%d payment-locked document(s) wait, %s to unlock them all: `acctadmin documents unlock ID... --card CARD_ID` (their ids: `acctadmin mail pull %s --json`)", len(waiting), money(total), dir)}
	}
	return nil
}

// printSummary prints the summary line of a pull after prefix, unless it
// is "" (--quiet and --json print none).
func printSummary(a *app, prefix, summary string) {
	if summary != "" {
		fmt.Fprintln(a.stdout, prefix+summary)
	}
}

// sortedLocked is the payment-locked documents, oldest first.
func sortedLocked(kept map[uuid.UUID]acctadmin.Document) []acctadmin.Document {
	docs := make([]acctadmin.Document, 0, len(kept))
	for _, d := range kept {
		docs = append(docs, d)
	}
	sort.Slice(docs, func(i, j int) bool {
		if !docs[i].CreatedAt.Equal(docs[j].CreatedAt) {
			return docs[i].CreatedAt.Before(docs[j].CreatedAt)
		}
		return docs[i].ID.String() < docs[j].ID.String()
	})
	return docs
}

// printPullSummary prints mail pull --json's object.
func (a *app) printPullSummary(dir string, p *pullProgress, waiting []acctadmin.Document, redownloads int64, err error) {
	s := pullSummary{Dir: dir, Saved: p.files(), Locked: []lockedDoc{}, Unlocked: []lockedDoc{}, Redownloads: redownloads}
	for _, d := range waiting {
		s.Locked = append(s.Locked, lockedDoc{ID: d.ID, Date: day(d.CreatedAt), CompanyName: d.CompanyName, Type: d.Type, UnlockPrice: d.UnlockPrice})
		s.LockedTotal = s.LockedTotal.Add(d.UnlockPrice)
	}
	if s.LockedTotal.IsZero() {
		s.LockedTotal = acctadmin.MoneyFromCents(0)
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

// lockedList lists the payment-locked documents a pull left unread, oldest
// first, or is "" when there are none.
func lockedList(kept map[uuid.UUID]acctadmin.Document, dir string) string {
	if len(kept) == 0 {
		return ""
	}
	docs := sortedLocked(kept)
	var b strings.Builder
	total := acctadmin.Money{}
	fmt.Fprintf(&b, "%d document(s) are payment-locked and were left unread:\n", len(docs))
	for _, d := range docs {
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
