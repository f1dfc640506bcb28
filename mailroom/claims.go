package mailroom

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/acctadmin/acctadmin-go/mailroom/internal/redislease"
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
// downloads a document only while it holds its claim, a lease per
// document (package redislease) holding the room's random token. A claim
// expires ttl after it was taken or last renewed, so that the claims of a
// room that died are taken over.
type redisClaims struct {
	leases *redislease.Client // each call bounded by the room's Redis timeout
	prefix string
	owner  string
	ttl    time.Duration
}

// maxRedisTimeout bounds each Redis call of the room, whatever the
// client's own timeouts (a third of the claim TTL when that is shorter): a
// Redis that does not answer stops the downloads soon. A call given up on
// finishes in the background within the client's own bounds; a claim it
// took expires with the claim TTL.
const maxRedisTimeout = 2 * time.Second

// key is the Redis key of the claim on id.
func (c *redisClaims) key(id uuid.UUID) string { return c.prefix + "claim:" + id.String() }

// take claims id, or renews the room's own claim on it; it reports false
// when another room holds it, and an error when it cannot tell.
func (c *redisClaims) take(ctx context.Context, id uuid.UUID) (bool, error) {
	held, err := c.leases.Acquire(ctx, c.key(id), c.owner, c.ttl)
	if err != nil {
		return false, fmt.Errorf("mailroom: claiming a document: %w", err)
	}
	return held, nil
}

// release gives up the room's claim on id; a claim another room holds is
// left alone. It runs even when ctx is done, for at most the call timeout.
func (c *redisClaims) release(ctx context.Context, id uuid.UUID) error {
	if _, err := c.leases.Release(context.WithoutCancel(ctx), c.key(id), c.owner); err != nil {
		return fmt.Errorf("mailroom: releasing a claim: %w", err)
	}
	return nil
}

// redisJournal is a Journal kept in Redis, for stores that keep none: a
// set of the ids whose download started and whose document is not saved.
type redisJournal struct {
	rdb   redis.UniversalClient
	calls *redislease.Client // bounds each call, as it bounds the claims'
	key   string
}

// Begin implements Journal.
func (j *redisJournal) Begin(ctx context.Context, id uuid.UUID) (bool, error) {
	var added int64
	err := j.calls.Do(ctx, func(ctx context.Context) (err error) {
		added, err = j.rdb.SAdd(ctx, j.key, id.String()).Result()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("mailroom: journal: %w", err)
	}
	return added == 0, nil
}

// End implements Journal.
func (j *redisJournal) End(ctx context.Context, id uuid.UUID) error {
	err := j.calls.Do(ctx, func(ctx context.Context) error {
		return j.rdb.SRem(ctx, j.key, id.String()).Err()
	})
	if err != nil {
		return fmt.Errorf("mailroom: journal: %w", err)
	}
	return nil
}

// Pending implements Journal.
func (j *redisJournal) Pending(ctx context.Context) ([]uuid.UUID, error) {
	var members []string
	err := j.calls.Do(ctx, func(ctx context.Context) (err error) {
		members, err = j.rdb.SMembers(ctx, j.key).Result()
		return err
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
