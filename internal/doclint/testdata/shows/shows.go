// Package shows declares exported names that show unexported ones.
package shows

// maxTries bounds the tries.
const maxTries = 3

type settings struct{ tries int }

type service struct{}

// Option configures a Thing.
type Option func(*settings) error

// Options are several.
type Options []*settings

// Client is a service, as go-github declares its services.
type Client service

// Alias is another name of settings.
type Alias = settings

// Run tries at most maxTries times.
func Run(route string, opts ...Option) {}

// Make returns the settings.
func Make() *settings { return nil }

// Thing has a field of an unexported type, and one hidden.
type Thing struct {
	Settings *settings
	hidden   *settings
}
