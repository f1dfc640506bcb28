// Package mailroom saves every document of an account (its mail: service
// of process, state notices, annual-report reminders) into a store,
// exactly once, the moment it arrives, from one process or a fleet.
//
//	store := mailroom.Dir("/var/mail/acct")
//	room, err := mailroom.New(client, verifier, store,
//		mailroom.WithCallbackURL("https://mail.example.com/callbacks"),
//		mailroom.WithRedis(rdb)) // for a fleet; leave out for one process
//	http.Handle("/callbacks", room.Handler())
//	go room.Run(ctx)
//
// A new-document callback is downloaded and saved before it is answered.
// Run registers the callback URL (exactly once, with
// acctadmin.CallbacksClient.Ensure) and then pulls, every pull interval,
// the unread documents that callbacks missed: a callback URL that was
// down, an event the API never sent, the mail that came before the room.
// The room is built on the SDK's own parts: webhook verifies the
// callbacks, Documents.Pull walks and downloads the unread mail (its
// Before step takes the room's claim and journal record right before each
// download), Documents.Download fetches a callback's document.
//
// # The parts
//
// The store (Store; Dir writes a folder) holds the documents and is the
// final word on what is saved: it refuses to save one id twice. Dir names
// each file for a person, with the document's date, company and type, and
// always its id ("2026-05-30 Acme Widgets LLC - Annual Report -
// <id>.pdf"; FileName, or WithNames), and records the ids saved apart, so
// that it knows a document saved by its id alone, also in a folder
// written before (<id>.pdf). The
// claims keep two deliveries, two pulls, or two rooms off one document:
// in the memory of the process for one room, and in Redis (WithRedis) for
// a fleet, where a claim is a key holding the room's random token, with
// an expiry (WithClaimTTL) that the room renews while it downloads, so
// that the claims of a room that died are taken over by another. The
// journal records each download before it starts and is ended once the
// document is saved: Dir keeps it in the folder itself (so rooms sharing
// the folder share it, and it lives as long as the documents), and a
// store that keeps none has it in Redis.
//
// # Exactly once
//
// Every document goes through the same steps, whether a callback, a pull
// or the journal brings it: claim the id, ask the store whether it is
// saved, record it in the journal, download it, save it, end the record,
// release the claim. A callback and the journal take them in one call; the
// reconciling pull takes them around Documents.Pull's download, the steps
// before it in PullParams.Before (on the worker, right before the
// download: a document claimed elsewhere, saved already, or in the journal
// already is left alone with acctadmin.ErrSkipDocument and never
// downloaded) and the steps after it in Pull's fn. The argument that each
// document ends up saved exactly once follows that order.
//
// Not twice: the store refuses a second save of an id, so whatever
// happens upstream, one file per document is written, and it is written
// whole (under a temporary name, synced, then linked to its final name)
// or not at all. The claims and the check of the store before the
// download are there so that the second download does not happen in the
// first place: a document is downloaded only by the holder of its claim,
// after the store said it is not saved. A second download happens only
// when a claim is lost while its holder still downloads (Redis restarted
// empty, or a room stalled past the claim TTL) or after a crash; Stats
// counts those (Redownloads), and the store still saves once.
//
// Not lost: the API marks a document read when it is downloaded, so a
// document downloaded and not saved would vanish from the unread listing
// that the pulls walk. The journal closes that gap: the record is made,
// durably, before the download is asked for, and ended only after the
// save returned (or the API said the document is gone). A room that dies,
// or whose download or save fails, leaves the record, and the next pull
// of any room fetches the document again by id once its claim is free
// (at once for a failure, after the claim TTL for a dead room). A
// document never downloaded stays unread, and the next pull lists it
// (why Documents.Pull passes over none: RELIABILITY.md, "Paging and
// Pull"). A document whose download keeps
// failing stays in the journal, and the pulls leave it to the journal's
// retries rather than stopping on it again. A callback is answered 2xx
// only when its document is saved (or kept out on purpose, or gone);
// anything else is a retryable status, and the sender delivers it again.
//
// When it cannot tell, the room does nothing: with Redis down a claim
// cannot be taken, so nothing is downloaded and callbacks are answered
// with a retryable status; when a store read fails, likewise. When Redis
// comes back, even empty, the store still refuses a second save, and the
// journal (in the folder) still holds every download in flight. While the
// store refuses writes (a full disk, a read-only mount), the room starts
// no download, so that it does not mark read document after document it
// cannot save: callbacks are answered with a retryable status and pulls
// stop, until the store's Check (Dir has one) or the next pull shows that
// a write succeeds. Only the store's own failure does that: a save that
// fails because its download was cut short (an error reading the body the
// store was given), or because its context ended, is that document's
// failure, kept in the journal, and the next document is downloaded.
//
// What this does not cover: a journal kept in Redis (a store without its
// own) is lost with a Redis that restarts empty; a download in flight
// then, and not saved, is lost with it. Keep the journal with the
// documents (Dir), or Redis persistent.
//
// # Choices
//
// The API posts every event to every registered URL, so the room's
// Handler serves them all at one URL: it saves the new documents and
// hands the other events (new-invoice, and whatever comes) to the
// function of WithEvents, as webhook.Handler would; without it they are
// acknowledged. A redelivery that finds its document being saved by
// another delivery or room is answered 503 with Retry-After. A room that
// only pulls (a nightly job calling Pull) needs no verifier: New takes a
// nil one, refuses WithCallbackURL then, and the room's Handler refuses
// every callback with 500 and a log line saying why, so that the sender
// keeps the events.
//
// Kept-out documents (WithKeepOut) are never downloaded, so they stay
// unread for other tools; their callbacks are acknowledged. A callback
// whose document the API no longer has (404) is acknowledged: there is
// nothing to save. A document the unread listing shows but whose download
// answers 404 does not stop a Pull: it starts again without it, and the
// next Pull tries it again, as its file may come later.
//
// Payment-locked documents (received for a company without an active
// registered-agent service; their download is refused until they are paid
// for, acctadmin.ErrPaymentRequired) are left unread: a pull does not ask
// for the download of one whose record says it is locked, and one whose
// download is refused all the same has its journal record ended and is
// left alone by later pulls until its record changes. Each is counted in
// Stats.Locked and logged once in the room's lifetime (the room remembers
// up to 10,000 of them), never at every pull; its callback is
// acknowledged. WithUnlock lets the room pay for them, at most once each
// (recorded in Redis and in Dir's folder before paying, so that rooms
// sharing either pay once between them), never above a ceiling per
// document nor, with WithUnlockBudget, above a total per pull, and save
// them; Room.LastPull lists what a pull paid for and what it left locked. WithOnSaved is called at least once per saved
// document. A callback's download goes on after its sender hangs up
// (within WithDownloadTimeout), so that the redelivery finds it saved
// rather than downloading it again.
package mailroom
