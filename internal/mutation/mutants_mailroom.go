package main

// The mail room's mutants: the claims, the store's durable writes, and
// what stops its downloads.
func init() {
	mutants = append(mutants,
		mutant{id: `mailroom-cut-download-refuses`, file: `mailroom/room.go`, pkg: `./mailroom`,
			what: `a download cut short taken for a store that refuses writes`,
			from: `if ctx.Err() == nil && !src.failed.Load() {`,
			to:   `if ctx.Err() == nil {`},
		mutant{id: `mailroom-claim-not-renewable`, file: `mailroom/claims.go`, pkg: `./mailroom`,
			what: `a room cannot renew its own claim, so a long download loses it to another room`,
			from: `if v == false or v == ARGV[1] then`,
			to:   `if v == false then`},
		mutant{id: `mailroom-release-any-claim`, file: `mailroom/claims.go`, pkg: `./mailroom`,
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
	)
}
