package main

// The mutants of the mail room's readable file names: the record of the
// ids saved, its order, the names made safe, and mail pull's handling of
// payment-locked documents.
func init() {
	mutants = append(mutants,
		mutant{id: `naming-no-record`, file: `mailroom/store.go`, pkg: `./mailroom`, run: `TestDir|TestFileName`,
			what: `Dir.Save records no id, so Has misses what it saved`,
			from: `	return s.markSaved(d.ID)
}`,
			to: `	return nil
}`},
		mutant{id: `naming-record-not-synced`, file: `mailroom/store.go`, pkg: `./mailroom`, run: `TestDir|TestFileName`,
			what: `the record of a saved id is not synced, and a power cut loses it`,
			from: `	return s.fs.SyncDir(s.saved)`,
			to:   `	return nil`},
		mutant{id: `naming-record-before-folder-sync`, file: `mailroom/store.go`, pkg: `./mailroom`, run: `TestDir|TestFileName`,
			what: `the id is recorded before the file's name is synced: a power cut may keep the record and lose the file`,
			from: `	if err := s.fs.SyncDir(s.path); err != nil {
		return err
	}
	return s.markSaved(d.ID)`,
			to: `	if err := s.markSaved(d.ID); err != nil {
		return err
	}
	return s.fs.SyncDir(s.path)`},
		mutant{id: `naming-taken-name-not-recorded`, file: `mailroom/store.go`, pkg: `./mailroom`, run: `TestDir|TestFileName`,
			what: `a Save that finds its name taken does not complete the record`,
			from: `		if err := s.markSaved(d.ID); err != nil {
			return err
		}
		return ErrAlreadySaved`,
			to: `		return ErrAlreadySaved`},
		mutant{id: `naming-save-skips-record`, file: `mailroom/store.go`, pkg: `./mailroom`, run: `TestDir|TestFileName`,
			what: `Save does not look for the record first, so a document renamed since is saved twice`,
			from: `if has, err := s.has(d.ID); err != nil || has {`,
			to:   `if has, err := false, error(nil); err != nil || has {`},
		mutant{id: `naming-has-no-old-files`, file: `mailroom/store.go`, pkg: `./mailroom`, run: `TestDir|TestFileName`,
			what: `Has looks only at the records, not at the <id>.pdf of older programs`,
			from: `[]string{s.record(id), s.oldFile(id)}`,
			to:   `[]string{s.record(id)}`},
		mutant{id: `naming-tidy-records-nothing`, file: `mailroom/store.go`, pkg: `./mailroom`, run: `TestDir|TestFileName`,
			what: `a store started after a crash does not record the files left without a record`,
			from: `if len(unrecorded) > 0 && syncDir(s.path) == nil {`,
			to:   `if false {`},
		mutant{id: `naming-slash-kept`, file: `mailroom/store.go`, pkg: `./mailroom`, run: `TestDir|TestFileName`,
			what: `a slash in a company's name makes a path`,
			from: "strings.ContainsRune(`/\\<>:\"|?*`, r)",
			to:   "strings.ContainsRune(`\\<>:\"|?*`, r)"},
		mutant{id: `naming-cut-mid-rune`, file: `mailroom/store.go`, pkg: `./mailroom`, run: `TestDir|TestFileName`,
			what: `a long part is cut inside a rune`,
			from: `for cut > 0 && !utf8.RuneStart(out[cut]) {`,
			to:   `for false {`},
		mutant{id: `naming-leading-dot-kept`, file: `mailroom/store.go`, pkg: `./mailroom`, run: `TestDir|TestFileName`,
			what: `a name may start with a dot and hide`,
			from: `strings.TrimLeft(b.String(), ". ")`,
			to:   `strings.TrimLeft(b.String(), " ")`},
		mutant{id: `naming-custom-name-without-id`, file: `mailroom/store.go`, pkg: `./mailroom`, run: `TestDir|TestFileName`,
			what: `a WithNames name is kept without the id`,
			from: `	case strings.HasSuffix(name, id.String()):`,
			to:   `	case true:`},
		mutant{id: `naming-cli-pulls-locked`, file: `cmd/acctadmin/mail.go`, pkg: `./cmd/acctadmin`, run: `TestScripts/mail`,
			what: `mail pull downloads the payment-locked documents`,
			from: `			if !d.PaymentLocked {
				return false
			}`,
			to: `			if true {
				return false
			}`},
		mutant{id: `naming-cli-locked-unlisted`, file: `cmd/acctadmin/mail.go`, pkg: `./cmd/acctadmin`, run: `TestScripts/mail`,
			what: `mail pull does not list the payment-locked documents it left unread`,
			from: `	defer fmt.Fprint(a.stdout, locked)`,
			to:   `	_ = locked`},
	)
}
