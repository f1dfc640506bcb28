package main

// The owner-token leases on Redis (mailroom/internal/redislease) that the mail
// room's claims and the webhook replay cache share.
func init() {
	mutants = append(mutants,
		mutant{id: `redis-lease-retried-set-foreign`, file: `mailroom/internal/redislease/redislease.go`, pkg: `./mailroom/internal/redislease`,
			what: `a Claim's SET sent again finds its own token and takes it for another owner's`,
			from: `	if old == owner {`,
			to:   `	if old == "" {`},
		mutant{id: `redis-lease-lost-claim-kept`, file: `mailroom/internal/redislease/redislease.go`, pkg: `./mailroom/internal/redislease`,
			what: `a Claim that failed or was given up on leaves its token until the TTL`,
			from: `		_, _ = c.release(ctx, key, owner)`,
			to:   `		_ = ctx`},
		mutant{id: `redis-lease-renewal-forever`, file: `mailroom/internal/redislease/redislease.go`, pkg: `./mailroom/internal/redislease`,
			what: `Acquire sets the token with no TTL, so a dead owner's lease never ends`,
			from: `	redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])`,
			to:   `	redis.call("SET", KEYS[1], ARGV[1])`},
		mutant{id: `redis-lease-zero-ttl`, file: `mailroom/internal/redislease/redislease.go`, pkg: `./mailroom/internal/redislease`,
			what: `a lease with no TTL accepted`,
			from: `	if ttl <= 0 {`,
			to:   `	if ttl < 0 {`},
		mutant{id: `redis-lease-any-integer`, file: `mailroom/internal/redislease/redislease.go`, pkg: `./mailroom/internal/redislease`,
			what: `a script's answer other than 0 or 1 read as a yes or no`,
			from: `	if !ok || n < 0 || n > 1 {`,
			to:   `	if !ok {`},
	)
}
