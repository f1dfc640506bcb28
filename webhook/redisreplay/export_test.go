package redisreplay

// WaitBackground waits for the goroutines of calls the cache gave up on.
func (c *Cache) WaitBackground() { c.leases.Wait() }
