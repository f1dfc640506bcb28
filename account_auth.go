package acctadmin

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// AuthClient logs the account's users in and resets their passwords.
type AuthClient service

var (
	routeAuthRefresh = declare(http.MethodGet, "/auth/refresh", "Auth.Refresh")
	routeAuthLogin   = declareOnce(http.MethodPost, "/auth/login", "Auth.Login",
		"logging in again is harmless")
	routeAuthForgotPassword = declareOnce(http.MethodPost, "/auth/forgot-password", "Auth.ForgotPassword",
		"a second request sends a second e-mail")
	routeAuthResetPassword = declareOnce(http.MethodPost, "/auth/reset-password", "Auth.ResetPassword",
		"logging in with the new password shows whether it was set")
)

// Session is what logging in or refreshing gives (no raw copy is kept).
type Session struct {
	Token     Secret    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
	UserID    uuid.UUID `json:"-"`
	UserEmail string    `json:"-"`
}

// Format prints the session as fmt prints a struct, Token redacted.
func (s Session) Format(f fmt.State, verb rune) { formatFields(f, verb, s, "acctadmin.Session") }

// UnmarshalJSON reads a session: its token from "token", "access_token",
// "auth_token" or a bare string, and its user from "user".
func (s *Session) UnmarshalJSON(data []byte) error {
	*s = Session{}
	if token, ok := unquote(data); ok {
		s.Token = Secret(token)
		return nil
	}
	type fields Session
	w := struct {
		*fields
		AccessToken Secret `json:"access_token"`
		AuthToken   Secret `json:"auth_token"`
		ExpiresAt   Time   `json:"expires_at"`
		User        struct {
			ID    uuid.UUID
			Email string
		} `json:"user"`
	}{fields: (*fields)(s)}
	err := readRecord(data, &w)
	s.Token = cmp.Or(s.Token, w.AccessToken, w.AuthToken)
	s.ExpiresAt, s.UserID, s.UserEmail = w.ExpiresAt.Time, w.User.ID, w.User.Email
	return err
}

// Refresh returns a fresh session for the account's user. GET /auth/refresh.
func (s *AuthClient) Refresh(ctx context.Context) (*Session, error) {
	var ses Session
	if err := s.c.json(ctx, routeAuthRefresh.at(), nil, nil, &ses); err != nil {
		return nil, err
	}
	return &ses, nil
}

// LoginParams logs a user in: Email and Password are required.
type LoginParams struct {
	Email     string
	Password  Secret
	WebsiteID uuid.UUID // when given, logs in to that website
}

// Format prints the params as fmt prints a struct, Password redacted.
func (p LoginParams) Format(f fmt.State, verb rune) {
	formatFields(f, verb, p, "acctadmin.LoginParams")
}

type loginBody struct {
	Email     string     `json:"email"`
	Password  string     `json:"password"`
	WebsiteID *uuid.UUID `json:"website_id,omitempty"`
}

func (b *loginBody) secretValues() []string { return []string{b.Password} }

// Login logs a user of the account in and returns the session. Sent at
// most once (see the package doc). POST /auth/login.
func (s *AuthClient) Login(ctx context.Context, p *LoginParams) (*Session, error) {
	p = orZero(p)
	if err := firstErr(checkRequired("email", p.Email), checkRequired("password", p.Password.Reveal())); err != nil {
		return nil, err
	}
	body := &loginBody{p.Email, p.Password.Reveal(), optID(p.WebsiteID)}
	var ses Session
	if err := s.c.json(ctx, routeAuthLogin.at(), nil, body, &ses); err != nil {
		return nil, err
	}
	return &ses, nil
}

// ForgotPasswordParams starts a password reset: EmailAddress is required;
// WebsiteID and Subdomain, when given, name the user's website.
type ForgotPasswordParams struct {
	EmailAddress string    `json:"email_address"`
	WebsiteID    uuid.UUID `json:"website_id,omitempty"`
	Subdomain    string    `json:"subdomain,omitempty"`
}

// ForgotPassword has the API e-mail a reset token to p.EmailAddress. Sent
// at most once (see the package doc). POST /auth/forgot-password.
func (s *AuthClient) ForgotPassword(ctx context.Context, p *ForgotPasswordParams) error {
	p = orZero(p)
	if err := checkRequired("email_address", p.EmailAddress); err != nil {
		return err
	}
	return s.c.json(ctx, routeAuthForgotPassword.at(), nil, bodyOf{p}, nil)
}

// ResetPasswordParams sets a new password with a reset token: Token and
// Password are required; PasswordConfirmation, when given, equals Password.
type ResetPasswordParams struct {
	Token, Password, PasswordConfirmation Secret
}

// Format prints the params as fmt prints a struct, secrets redacted.
func (p ResetPasswordParams) Format(f fmt.State, verb rune) {
	formatFields(f, verb, p, "acctadmin.ResetPasswordParams")
}

type resetBody struct {
	Token                string `json:"token"`
	Password             string `json:"password"`
	PasswordConfirmation string `json:"password_confirmation"`
}

func (b *resetBody) secretValues() []string {
	return []string{b.Token, b.Password, b.PasswordConfirmation}
}

// ResetPassword sets a new password with a reset token. Sent at most once
// (see the package doc). POST /auth/reset-password.
func (s *AuthClient) ResetPassword(ctx context.Context, p *ResetPasswordParams) error {
	p = orZero(p)
	confirm := cmp.Or(p.PasswordConfirmation, p.Password)
	if err := firstErr(checkRequired("token", p.Token.Reveal()), checkRequired("password", p.Password.Reveal()),
		checkThat(confirm == p.Password, "password_confirmation", "does not match password")); err != nil {
		return err
	}
	body := &resetBody{p.Token.Reveal(), p.Password.Reveal(), confirm.Reveal()}
	return s.c.json(ctx, routeAuthResetPassword.at(), nil, body, nil)
}
