// Package paging is the walk that reads the unread documents listing for
// Documents.All and Documents.Pull: a listing that its consumer shrinks
// (a download takes a document out) and that others may change under it.
// It hands out each row with an id once, and every row that stays listed
// until it is reached. It sends one request at a time (Request), takes in
// its answer (Answer), and learns what became of each row handed out
// from its consumer (Listing.StatusOf, or MarkStatus).
//
// Counting: each request starts past the rows known to stay (a row left
// alone stays, one whose download answered is gone), asks for the last of
// them again (the overlap) and for the rows seen past it whose status is
// not known yet, besides a page. On a server that pages honestly and
// changes only by the consumer's downloads, the pass that ends is the
// walk's last: All costs pages + 1 requests, Pull pages + 2.
//
// The one rule to look again: an answer whose overlap moved (a row before
// it left), that shows a row handed out before or one row twice, or that
// is longer than asked, makes the walk confirming from the rows known to
// stay on; so does a row All handed out whose status is not known, and a
// walk whose consumer is unknown, or whose listing does not shrink, is
// confirming from the start.
//
// Confirming: each request's offset counts only the rows that can no
// longer leave by the consumer's doing, while they run unbroken from the
// previous offset. A pass that ends (an empty page, or a page gone over
// whole that is shorter than one before or longer than the limit) is
// followed by another from the start, until two passes running go over
// the same rows in the same order (a pass that began counting does not
// confirm); MaxPasses passes give StepUnsettled. An answer that opens with
// the rows of the one before (all, or the limit's and one more) at a later
// offset, IgnoredAfter times running, gives StepIgnored if it holds the
// limit, and else ends the pass: a pass the offset cannot end. A page longer
// than the limit is the whole listing at the listing's start when it
// shows each row once, or when it comes back at a later offset; else it
// is gone over as far as the limit.
package paging
