package main

import (
	"net/url"
	"strings"
)

// redactURL is a URL as the command prints it: its password, if it has
// one, replaced by xxxxx (url.URL.Redacted). A URL that does not parse is
// cut the same way by hand: whatever lies between the first colon after
// the scheme and the last @ is hidden.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	prefix, rest := "", s
	if i := strings.Index(s, "://"); i >= 0 {
		prefix, rest = s[:i+3], s[i+3:]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return s
	}
	user, _, ok := strings.Cut(rest[:at], ":")
	if !ok {
		return s
	}
	return prefix + user + ":xxxxx" + rest[at:]
}
