// Package paging is the walk that reads the unread documents listing for
// Documents.All and Documents.Pull: a listing its consumer shrinks (a
// download takes a document out) and others may change. It hands out
// each row with an id once, and every row that stays listed until it is
// reached, one request at a time (Request, then Answer), told what the
// consumer did to each row handed out (Listing.StatusOf, or MarkStatus).
//
//	counting ──(an answer breaks its rules)──▶ confirming ──▶ StepDone,
//	   └──▶ StepDone (the pass ends)              StepIgnored, StepUnsettled
//
// Counting: each request starts past the rows known to stay, asks for
// the last of them again (the overlap) and for the rows seen past it
// whose status is not known yet, besides a page. On a server that pages
// honestly and changes only by the consumer's downloads, that pass is the
// walk's only one: All costs pages + 1 requests, Pull pages + 2. An
// answer whose overlap moved, that shows a row handed out before or a row
// twice, or that is longer than asked, makes the walk confirming from the
// rows known to stay; so does a row All handed out whose status is not
// known. A walk whose consumer is unknown confirms from the start; so does
// one whose listing does not shrink, and it ends with its first pass.
//
// Confirming: each offset counts only the rows that can no longer leave
// by the consumer's doing, while they run unbroken from the previous
// offset. A pass ends with an empty page, or a page gone over whole that
// is shorter than one before or longer than the limit; another follows
// from the start, until two passes running (not one that began counting)
// go over the same rows in the same order, or MaxPasses give
// StepUnsettled. A page that opens with the rows of the one before (all,
// or the limit's and one more) at a later offset, IgnoredAfter times
// running, gives StepIgnored if it holds the limit, and else ends the
// pass. A page longer than the limit is the whole listing at the start
// when it shows each row once, or when it comes back at a later offset;
// else it is gone over as far as the limit.
package paging
