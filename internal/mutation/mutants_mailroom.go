package main

// The mail room's mutants: the claims, the store's durable writes, and
// what stops its downloads.
func init() {
	mutants = append(mutants,
		mutant{id: `mailroom-cut-download-refuses`, file: `mailroom/room.go`, pkg: `./mailroom`,
			what: `a download cut short taken for a store that refuses writes`,
			from: `if ctx.Err() == nil && !src.failed.Load() {`,
			to:   `if ctx.Err() == nil {`},
		mutant{id: `mailroom-context-cut-refuses`, file: `mailroom/room.go`, pkg: `./mailroom`,
			what: `a save cut short by its context taken for a store that refuses writes`,
			from: `if ctx.Err() == nil && !src.failed.Load() {`,
			to:   `if !src.failed.Load() {`},
		mutant{id: `mailroom-claim-not-renewable`, file: `mailroom/internal/redislease/redislease.go`, pkg: `./mailroom/internal/redislease`,
			what: `a room cannot renew its own claim, so a long download loses it to another room`,
			from: `if v == false or v == ARGV[1] then`,
			to:   `if v == false then`},
		mutant{id: `mailroom-release-any-claim`, file: `mailroom/internal/redislease/redislease.go`, pkg: `./mailroom/internal/redislease`,
			what: `a release deletes whichever room's claim it finds`,
			from: `if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`,
			to: `return redis.call("DEL", KEYS[1])`},
		mutant{id: `mailroom-renew-at-expiry`, file: `mailroom/room.go`, pkg: `./mailroom`,
			what: `the claim renewed once per TTL, just as it expires`,
			from: `r.ticker(r.cfg.ttl / 3)`,
			to:   `r.ticker(r.cfg.ttl)`},
		mutant{id: `mailroom-dir-no-file-sync`, file: `mailroom/store.go`, pkg: `./mailroom`,
			what: `Dir.Save links a temporary file it never synced`,
			from: `	if err == nil {
		err = f.Sync()
	}
`,
			to: ``},
		mutant{id: `mailroom-dir-no-folder-sync`, file: `mailroom/store.go`, pkg: `./mailroom`,
			what: `Dir.Save returns without syncing the folder after the link`,
			from: `	if err := s.fs.SyncDir(s.path); err != nil {
		return err
	}
	return s.markSaved(d.ID)`,
			to: `	return s.markSaved(d.ID)`},
		mutant{id: `mailroom-dir-folder-sync-before-link`, file: `mailroom/store.go`, pkg: `./mailroom`,
			what: `Dir.Save syncs the folder before the link, which a power cut then loses`,
			from: `	if err := s.fs.Link(tmp, filepath.Join(s.path, s.names(d))); err != nil {
		s.fs.Remove(tmp)
		if !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("mailroom: %w", err)
		}
		// Saved by another Save, which may not have made its record yet.
		if err := s.fs.SyncDir(s.path); err != nil {
			return err
		}
		if err := s.markSaved(d.ID); err != nil {
			return err
		}
		return ErrAlreadySaved
	}
	if err := s.fs.Remove(tmp); err != nil {
		return fmt.Errorf("mailroom: %w", err)
	}
	if err := s.fs.SyncDir(s.path); err != nil {
		return err
	}
	return s.markSaved(d.ID)`,
			to: `	if err := s.fs.SyncDir(s.path); err != nil {
		return err
	}
	if err := s.fs.Link(tmp, filepath.Join(s.path, s.names(d))); err != nil {
		s.fs.Remove(tmp)
		if !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("mailroom: %w", err)
		}
		// Saved by another Save, which may not have made its record yet.
		if err := s.fs.SyncDir(s.path); err != nil {
			return err
		}
		if err := s.markSaved(d.ID); err != nil {
			return err
		}
		return ErrAlreadySaved
	}
	if err := s.fs.Remove(tmp); err != nil {
		return fmt.Errorf("mailroom: %w", err)
	}
	return s.markSaved(d.ID)`},
	)
}
