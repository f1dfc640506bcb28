// Package webhook verifies the callback events that the Account
// Administration API posts to registered callback URLs, and signs events
// the same way for tests.
package webhook
