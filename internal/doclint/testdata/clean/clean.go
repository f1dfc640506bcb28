// Package clean declares exported names that show no unexported one.
package clean

const maxTries = 3

type settings struct{ tries int }

type route struct{}

// Option configures a Thing.
type Option interface{ apply(*settings) error }

// Run tries at most 3 times; the settings are kept.
func Run(route string, opts ...Option) {}

// Thing hides its settings.
type Thing struct {
	settings *settings
	r        route
}

func (t *Thing) apply(s *settings) error { return nil }
