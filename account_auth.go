package acctadmin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// AuthClient logs the account's users in and resets their passwords.
// Every request is still signed with the account's keys; passwords and
// tokens are Secrets, which no output of the SDK shows.
type AuthClient service

// The routes of authentication.
var (
	routeAuthRefresh = declare(http.MethodGet, "/auth/refresh", "Auth.Refresh")
	routeAuthLogin   = declareOnce(http.MethodPost, "/auth/login", "Auth.Login",
		"logging in again is harmless")
	routeAuthForgotPassword = declareOnce(http.MethodPost, "/auth/forgot-password", "Auth.ForgotPassword",
		"a second request sends a second e-mail")
	routeAuthResetPassword = declareOnce(http.MethodPost, "/auth/reset-password", "Auth.ResetPassword",
		"logging in with the new password shows whether it was set")
)

// Session is what logging in or refreshing gives. The provider shows no
// answer of these routes; the fields typed here are those of the SDK's
// fake. The token is a Secret, and the record keeps no raw copy of the
// answer, which holds it.
type Session struct {
	Token     Secret    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
	UserID    uuid.UUID `json:"-"`
	UserEmail string    `json:"-"`
}

// sessionFields is a Session without its methods, for Format.
type sessionFields Session

// Format prints the session as fmt prints a struct, with Token redacted,
// under every verb; so do a []*Session and a map of them.
func (s Session) Format(f fmt.State, verb rune) {
	formatFields(f, verb, sessionFields(s), "acctadmin.Session")
}

// UnmarshalJSON reads a session: its token from "token", "access_token"
// or "auth_token", or the result itself when it is a string.
func (s *Session) UnmarshalJSON(data []byte) error {
	*s = Session{}
	if tok, ok := unquote(data); ok {
		s.Token = Secret(tok)
		return nil
	}
	if string(data) == "null" {
		return nil
	}
	var w struct {
		Token       string `json:"token"`
		AccessToken string `json:"access_token"`
		AuthToken   string `json:"auth_token"`
		ExpiresAt   Time   `json:"expires_at"`
		User        struct {
			ID    uuid.UUID `json:"id"`
			Email string    `json:"email"`
		} `json:"user"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	tok := w.Token
	for _, t := range []string{w.AccessToken, w.AuthToken} {
		if tok == "" {
			tok = t
		}
	}
	*s = Session{Token: Secret(tok), ExpiresAt: w.ExpiresAt.Time, UserID: w.User.ID, UserEmail: w.User.Email}
	return nil
}

// Refresh returns a fresh session for the account's user. GET /auth/refresh.
func (s *AuthClient) Refresh(ctx context.Context) (*Session, error) {
	return one(call[Session](ctx, s.c, routeAuthRefresh.at(), nil, nil))
}

// LoginParams logs a user in: Email and Password are required.
type LoginParams struct {
	Email    string
	Password Secret
	// WebsiteID, when given, logs in to that website.
	WebsiteID uuid.UUID
}

// loginFields is a LoginParams without its methods, for Format.
type loginFields LoginParams

// Format prints the params as fmt prints a struct, with Password
// redacted, under every verb; so do a []*LoginParams and a map of them.
func (p LoginParams) Format(f fmt.State, verb rune) {
	formatFields(f, verb, loginFields(p), "acctadmin.LoginParams")
}

type loginBody struct {
	Email     string     `json:"email"`
	Password  string     `json:"password"`
	WebsiteID *uuid.UUID `json:"website_id,omitempty"`
}

func (b *loginBody) secretValues() []string { return []string{b.Password} }

// Login logs a user of the account in with an e-mail address and a
// password, and returns the session. A POST, it is never repeated; a
// failure after the request may have arrived is ErrOutcomeUnknown, and
// logging in again is harmless. POST /auth/login.
func (s *AuthClient) Login(ctx context.Context, p *LoginParams) (*Session, error) {
	if p == nil {
		p = &LoginParams{}
	}
	if err := firstErr(checkRequired("email", p.Email), checkRequired("password", p.Password.Reveal())); err != nil {
		return nil, err
	}
	return one(call[Session](ctx, s.c, routeAuthLogin.at(), nil, &loginBody{p.Email, p.Password.Reveal(), optID(p.WebsiteID)}))
}

// ForgotPasswordParams starts a password reset: EmailAddress is required.
type ForgotPasswordParams struct {
	EmailAddress string
	// WebsiteID and Subdomain, when given, name the website the user
	// belongs to.
	WebsiteID uuid.UUID
	Subdomain string
}

// ForgotPassword starts a password reset for the user p.EmailAddress: the
// API e-mails a reset token. A POST, it is never repeated; a failure
// after the request may have arrived is ErrOutcomeUnknown, and asking
// again sends a second e-mail. POST /auth/forgot-password.
func (s *AuthClient) ForgotPassword(ctx context.Context, p *ForgotPasswordParams) error {
	if p == nil {
		p = &ForgotPasswordParams{}
	}
	if err := checkRequired("email_address", p.EmailAddress); err != nil {
		return err
	}
	body := struct {
		EmailAddress string     `json:"email_address"`
		WebsiteID    *uuid.UUID `json:"website_id,omitempty"`
		Subdomain    string     `json:"subdomain,omitempty"`
	}{p.EmailAddress, optID(p.WebsiteID), p.Subdomain}
	_, err := call[ignored](ctx, s.c, routeAuthForgotPassword.at(), nil, body)
	return err
}

// ResetPasswordParams sets a new password: Token and Password are
// required. PasswordConfirmation, when empty, is sent as Password (the
// provider's clients always send the two equal); when given, it must
// equal Password.
type ResetPasswordParams struct {
	// Token is the reset token the user received.
	Token                Secret
	Password             Secret
	PasswordConfirmation Secret
}

// resetFields is a ResetPasswordParams without its methods, for Format.
type resetFields ResetPasswordParams

// Format prints the params as fmt prints a struct, with the token and
// the passwords redacted, under every verb; so do a
// []*ResetPasswordParams and a map of them.
func (p ResetPasswordParams) Format(f fmt.State, verb rune) {
	formatFields(f, verb, resetFields(p), "acctadmin.ResetPasswordParams")
}

type resetBody struct {
	Token                string `json:"token"`
	Password             string `json:"password"`
	PasswordConfirmation string `json:"password_confirmation"`
}

func (b *resetBody) secretValues() []string {
	return []string{b.Token, b.Password, b.PasswordConfirmation}
}

// ResetPassword sets a new password with a reset token. A POST, it is
// never repeated; a failure after the request may have arrived is
// ErrOutcomeUnknown, and logging in with the new password shows whether
// it was set. POST /auth/reset-password.
func (s *AuthClient) ResetPassword(ctx context.Context, p *ResetPasswordParams) error {
	if p == nil {
		p = &ResetPasswordParams{}
	}
	confirm := p.PasswordConfirmation
	if confirm == "" {
		confirm = p.Password
	}
	if err := firstErr(checkRequired("token", p.Token.Reveal()), checkRequired("password", p.Password.Reveal())); err != nil {
		return err
	}
	if confirm != p.Password {
		return invalid("password_confirmation", "does not match password")
	}
	_, err := call[ignored](ctx, s.c, routeAuthResetPassword.at(), nil, &resetBody{p.Token.Reveal(), p.Password.Reveal(), confirm.Reveal()})
	return err
}
