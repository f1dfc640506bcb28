package mailroom

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// inflight are the documents this room is working on: a second delivery
// of one finds it here and does not download it again. Within one process
// nothing dies without the whole room, so these need no expiry.
type inflight struct {
	mu  sync.Mutex
	ids map[uuid.UUID]struct{}
}

func (f *inflight) take(id uuid.UUID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.ids[id]; ok {
		return false
	}
	if f.ids == nil {
		f.ids = map[uuid.UUID]struct{}{}
	}
	f.ids[id] = struct{}{}
	return true
}

func (f *inflight) release(id uuid.UUID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.ids, id)
}

// redisClaims keep the rooms of a fleet off one document: a room
// downloads a document only while it holds its claim, a key per document
// holding the room's random token. A claim expires ttl after it was taken
// or last renewed, so that the claims of a room that died are taken over.
type redisClaims struct {
	rdb     redis.UniversalClient
	prefix  string
	owner   string
	ttl     time.Duration
	timeout time.Duration // of each call
}

// takeScript claims KEYS[1] for ARGV[1] for ARGV[2] milliseconds when it is
// free or already the caller's (then it renews it), in one step; it
// answers 1 when the caller holds the claim, 0 when another does.
var takeScript = redis.NewScript(`
local v = redis.call("GET", KEYS[1])
if v == false or v == ARGV[1] then
	redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
	return 1
end
return 0`)

// releaseScript deletes KEYS[1] while it holds ARGV[1].
var releaseScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// maxRedisTimeout bounds each Redis call of the room, whatever the
// client's own timeouts (a third of the claim TTL when that is shorter): a
// Redis that does not answer stops the downloads soon.
const maxRedisTimeout = 2 * time.Second

// bounded runs f on a goroutine of its own with a context bounded by d,
// and returns its result, or an error wrapping the context's as soon as
// that ends: go-redis honours a context's deadline only when the client
// was built with ContextTimeoutEnabled, and otherwise waits out its own
// read and write timeouts and retries. A call given up on finishes in the
// background within the client's own bounds; a claim it took expires
// with the claim TTL.
func bounded[T any](ctx context.Context, d time.Duration, f func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		select {
		case r := <-done: // answered as the time ran out
			return r.v, r.err
		default:
		}
		var zero T
		return zero, fmt.Errorf("no answer from Redis: %w", ctx.Err())
	}
}

// take claims id, or renews the room's own claim on it; it reports false
// when another room holds it, and an error when it cannot tell.
func (c *redisClaims) take(ctx context.Context, id uuid.UUID) (bool, error) {
	n, err := bounded(ctx, c.timeout, func(ctx context.Context) (int64, error) {
		return takeScript.Run(ctx, c.rdb, []string{c.prefix + "claim:" + id.String()}, c.owner, c.ttl.Milliseconds()).Int64()
	})
	if err != nil {
		return false, fmt.Errorf("mailroom: claiming a document: %w", err)
	}
	switch n {
	case 1:
		return true, nil
	case 0:
		return false, nil
	default:
		return false, errors.New("mailroom: claiming a document: unexpected answer from Redis")
	}
}

// release gives up the room's claim on id; a claim another room holds is
// left alone. It runs even when ctx is done, for at most the call timeout.
func (c *redisClaims) release(ctx context.Context, id uuid.UUID) error {
	_, err := bounded(context.WithoutCancel(ctx), c.timeout, func(ctx context.Context) (any, error) {
		return nil, releaseScript.Run(ctx, c.rdb, []string{c.prefix + "claim:" + id.String()}, c.owner).Err()
	})
	if err != nil {
		return fmt.Errorf("mailroom: releasing a claim: %w", err)
	}
	return nil
}

// redisJournal is a Journal kept in Redis, for stores that keep none: a
// set of the ids whose download started and whose document is not saved.
type redisJournal struct {
	rdb     redis.UniversalClient
	key     string
	timeout time.Duration // of each call
}

// Begin implements Journal.
func (j *redisJournal) Begin(ctx context.Context, id uuid.UUID) (bool, error) {
	added, err := bounded(ctx, j.timeout, func(ctx context.Context) (int64, error) {
		return j.rdb.SAdd(ctx, j.key, id.String()).Result()
	})
	if err != nil {
		return false, fmt.Errorf("mailroom: journal: %w", err)
	}
	return added == 0, nil
}

// End implements Journal.
func (j *redisJournal) End(ctx context.Context, id uuid.UUID) error {
	_, err := bounded(ctx, j.timeout, func(ctx context.Context) (int64, error) {
		return j.rdb.SRem(ctx, j.key, id.String()).Result()
	})
	if err != nil {
		return fmt.Errorf("mailroom: journal: %w", err)
	}
	return nil
}

// Pending implements Journal.
func (j *redisJournal) Pending(ctx context.Context) ([]uuid.UUID, error) {
	members, err := bounded(ctx, j.timeout, func(ctx context.Context) ([]string, error) {
		return j.rdb.SMembers(ctx, j.key).Result()
	})
	if err != nil {
		return nil, fmt.Errorf("mailroom: journal: %w", err)
	}
	ids := make([]uuid.UUID, 0, len(members))
	for _, m := range members {
		if id, err := uuid.Parse(m); err == nil {
			ids = append(ids, id)
		}
	}
	return ids, nil
}
