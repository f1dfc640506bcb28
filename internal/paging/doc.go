// Package paging is the walk that reads the unread documents listing for
// Documents.All and Documents.Pull: a listing that its consumer shrinks
// (downloading a document takes it out of the listing) and that others
// may change under it. The walk hands out each row with an id once, and
// every row that stays in the listing until it is reached.
//
// The walk sends one request at a time (Request), takes in its answer
// (Answer), and is told by its consumer what became of each row it
// handed out (MarkHandled, MarkStatus, or Listing.StatusOf). It is in one
// of two states, and one rule moves it from the first to the second:
//
//	            first answer within the rules
//	start ──► COUNTING ──────────────────────────► pass ends ──► DONE
//	  │          │  an answer shows another hand
//	  │          │  (overlap moved, a row again, a page too long,
//	  │          │   a row of unknown status in All)
//	  │          ▼
//	  └────► CONFIRMING ──► pass ends ──► same signature as the pass
//	consumer      ▲    │                  before (not one that began
//	unknown       └────┘ new pass          counting)? ──► DONE
//	              from the start           MaxPasses ──► UNSETTLED
//	                                       page again ×3 ──► IGNORED
//
// Counting: the walk counts on what it knows of its consumer. A row the
// consumer left alone stays, a row whose download answered is gone, so
// each request starts past the rows known to stay (stayingEnd), asks for
// the last of them again (the overlap), and for the rows seen past it
// whose status is not known yet besides a page. Every answer is checked
// against what the pass's completeness rests on: the overlap is where it
// was (no row before it left), the rows after the seen ones are new (no
// id handed out before, none twice), and the answer is no longer than
// asked. A pass that ends within those rules missed no row, and is the
// walk's last: on a server that pages honestly and changes only by the
// consumer's downloads, All costs pages + 1 requests and Pull pages + 2.
//
// The rule to look again: the first answer that breaks those rules makes
// the walk confirming, from the rows known to stay on; so does a row All
// handed out whose status is not known (its download failed, or runs
// where the client cannot see), and a walk whose consumer is unknown, or
// whose listing does not shrink, is confirming from the start.
//
// Confirming: the offset of each request counts only rows that cannot
// leave the listing any more by the consumer's doing (rows without an
// id, rows kept out, rows whose download had answered before the
// request was sent) while they form an unbroken run from the previous
// offset, so the offset never passes a row not handed out yet, or one
// that may still vanish. A pass can then miss a row only when a row it
// passed over vanished later by another hand (a replica that trails the
// read marks, others reading), so a pass that ends (an empty page, or a
// short page gone over whole) is followed by another from the start, and
// the walk ends when two passes running go over the same rows in the same
// order (the same signature): no row passed over in the first vanished,
// so it missed none. The pass that began counting does not confirm. An
// empty page at the start ends the walk too. The walk gives up after
// MaxPasses passes (StepUnsettled), and ends with StepIgnored when a full
// page comes back IgnoredAfter times running at later offsets.
//
// A page longer than the limit is the whole listing when it comes back at
// a later offset (the API ignores limit and offset) or when it is the
// listing's start and shows each row once (the API ignores the limit);
// another long page may be a page the API added rows to, and is gone over
// as far as the limit only.
//
// Once: every id handed out is kept (20 bytes an id), and an id already
// handed out is never handed out again, however often the listing shows
// it.
package paging
