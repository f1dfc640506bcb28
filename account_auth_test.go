package acctadmin

import (
	"context"
	"encoding/json"
	"testing"
)

// A session written as a bare string is that token, the empty string
// included, and nothing else: no other name of the token is looked for
// in a record that has none.
func TestSessionFromABareString(t *testing.T) {
	for _, tc := range []struct{ json, token string }{{`""`, ""}, {`"tok-1"`, "tok-1"}, {`"\u0041"`, "A"}} {
		s := Session{Token: "stale", UserEmail: "stale@example.com"}
		if err := json.Unmarshal([]byte(tc.json), &s); err != nil || s != (Session{Token: Secret(tc.token)}) {
			t.Errorf("json.Unmarshal(%s) = %v, %v; want only the token %q", tc.json, s, err, tc.token)
		}
		var got Session
		ok, err := decodeEnvelope("GET /auth/refresh", []byte(`{"success":true,"result":`+tc.json+`}`), &got)
		if err != nil || !ok || got != (Session{Token: Secret(tc.token)}) {
			t.Errorf("the answer %s read as %v, %v, %v", tc.json, got, ok, err)
		}
	}
}

// Bad parameters of Auth are refused before anything is sent, by a
// *ValidationError naming the field as the API spells it.
func TestAuthRefusesBadParams(t *testing.T) {
	checkRefused(t, []badParams{
		{"login without email", "email", func(ctx context.Context, c *Client) error {
			_, err := c.Auth.Login(ctx, &LoginParams{Password: wcPassword})
			return err
		}},
		{"login without password", "password", func(ctx context.Context, c *Client) error {
			_, err := c.Auth.Login(ctx, &LoginParams{Email: "u@example.com"})
			return err
		}},
		{"forgot without address", "email_address", func(ctx context.Context, c *Client) error { return c.Auth.ForgotPassword(ctx, nil) }},
		{"reset without token", "token", func(ctx context.Context, c *Client) error {
			return c.Auth.ResetPassword(ctx, &ResetPasswordParams{Password: wcPassword})
		}},
		{"reset without password", "password", func(ctx context.Context, c *Client) error {
			return c.Auth.ResetPassword(ctx, &ResetPasswordParams{Token: wcResetToken})
		}},
		{"reset confirmation differs", "password_confirmation", func(ctx context.Context, c *Client) error {
			return c.Auth.ResetPassword(ctx, &ResetPasswordParams{Token: wcResetToken, Password: wcPassword, PasswordConfirmation: wcPassword + "x"})
		}},
	})
}
