package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"

	acctadmin "github.com/acctadmin/acctadmin-go"
	"github.com/spf13/cobra"
)

// EnvProfile names the profile to use when --profile is not given.
const envProfile = "ACCTADMIN_PROFILE"

// defaultProfile is the profile used when none is named.
const defaultProfile = "default"

// profile is one stored pair of keys and the API's address.
type profile struct {
	AccessKey string `json:"access_key"`
	SecretKey string `json:"secret_key"`
	BaseURL   string `json:"base_url,omitempty"`
}

// profileFile is the file of the profiles: {"profiles": {NAME: profile}}.
type profileFile struct {
	Profiles map[string]profile `json:"profiles"`
}

// profilesPath is where the profiles are kept: the user's config folder
// (os.UserConfigDir), acctadmin/profiles.json.
func profilesPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config folder for the profiles: %w", err)
	}
	return filepath.Join(dir, "acctadmin", "profiles.json"), nil
}

// readProfiles reads the profiles; no file is no profile. A file that
// others may read is refused: it holds secret keys.
func readProfiles() (*profileFile, string, error) {
	path, err := profilesPath()
	if err != nil {
		return nil, "", err
	}
	pf := &profileFile{Profiles: map[string]profile{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return pf, path, nil
	}
	if err != nil {
		return nil, path, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return nil, path, usageErrorf("%s holds secret keys and others may read it (mode %v): run chmod 600 %s", path, st.Mode().Perm(), path)
	}
	if err := json.NewDecoder(f).Decode(pf); err != nil {
		return nil, path, usageErrorf("%s is not a file of profiles: %v; remove it and run acctadmin auth login again", path, err)
	}
	if pf.Profiles == nil {
		pf.Profiles = map[string]profile{}
	}
	return pf, path, nil
}

// writeProfiles writes the profiles whole: a new file of mode 0600 in a
// folder of mode 0700, renamed over the old one.
func writeProfiles(pf *profileFile, path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(pf, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".profiles-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// profileName is the profile of the run: --profile, else
// ACCTADMIN_PROFILE, else default; named reports whether it was chosen.
func (a *app) profileName() (name string, named bool) {
	if a.profile != "" {
		return a.profile, true
	}
	if p := os.Getenv(envProfile); p != "" {
		return p, true
	}
	return defaultProfile, false
}

// currentProfile is the profile of the run, or nil when there is none: a
// profile named (by --profile or ACCTADMIN_PROFILE) that is not stored is
// an error.
func (a *app) currentProfile() (*profile, error) {
	if a.profileRead {
		return a.prof, nil
	}
	name, named := a.profileName()
	pf, path, err := readProfiles()
	if err != nil {
		return nil, err
	}
	p, ok := pf.Profiles[name]
	if !ok && named {
		return nil, usageErrorf("no profile %q in %s; store one with `acctadmin auth login --profile %s`", name, path, name)
	}
	a.profileRead = true
	if ok {
		a.prof = &p
	}
	return a.prof, nil
}

// maskKey shows the first four characters of an access key.
func maskKey(k string) string {
	if len(k) <= 8 {
		return strings.Repeat("*", len(k))
	}
	return k[:4] + strings.Repeat("*", 8)
}

// authCommand stores, shows and removes the profiles.
func (a *app) authCommand() *cobra.Command {
	var secretStdin bool
	login := &cobra.Command{
		Use:   "login [--profile NAME] --access-key AK --secret-key-stdin [--base-url URL]",
		Short: "Store a pair of keys as a profile, after the API accepts them",
		Long: `Store a pair of keys (and the API's address) as a profile, in the user's
config folder (acctadmin/profiles.json: the file of mode 0600, its folder
0700). The secret key is read from standard input, so that it shows neither
in ps nor in the shell's history. The keys are checked with GET /account
first: keys the API refuses are not stored (exit 4).

The profile is named by --profile (default: default). The provider's test
mode is a second pair of keys on the same address: store it as a profile of
its own (test) and choose it with --profile test or ACCTADMIN_PROFILE=test.
Flags beat the environment (ACCTADMIN_ACCESS_KEY, ACCTADMIN_SECRET_KEY,
ACCTADMIN_BASE_URL), and the environment beats the profile.`,
		Example: `  acctadmin auth login --access-key AK... --secret-key-stdin < live-secret.txt
  pass show acctadmin/test | acctadmin auth login --profile test --access-key AK... --secret-key-stdin`,
		Args: noArgs,
	}
	login.Flags().BoolVar(&secretStdin, "secret-key-stdin", false, "read the secret key from standard input (required)")
	login.RunE = func(cmd *cobra.Command, _ []string) error {
		name, _ := a.profileName()
		if a.accessKey == "" {
			return usageErrorf("auth login needs --access-key AK")
		}
		if !secretStdin {
			return usageErrorf("auth login reads the secret key from standard input: give --secret-key-stdin")
		}
		line, err := bufio.NewReader(a.stdin).ReadString('\n')
		if err != nil && line == "" {
			return usageErrorf("auth login --secret-key-stdin: no secret key on standard input")
		}
		secret := strings.TrimSpace(line)
		if secret == "" {
			return usageErrorf("auth login --secret-key-stdin: no secret key on standard input")
		}
		pf, path, err := readProfiles()
		if err != nil {
			return err
		}
		base := a.baseURL
		if base == "" {
			base = os.Getenv(acctadmin.EnvBaseURL)
		}
		p := profile{AccessKey: a.accessKey, SecretKey: secret, BaseURL: base}
		acct, err := a.checkProfile(p)
		if err != nil {
			return err
		}
		pf.Profiles[name] = p
		if err := writeProfiles(pf, path); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "stored profile %s (%s, access key %s) for the account %s in %s\n",
			name, redactURL(baseOr(p.BaseURL)), maskKey(p.AccessKey), acct.Email, path)
		return nil
	}

	status := &cobra.Command{
		Use:   "status",
		Short: "List the profiles and check each one's keys with the API",
		Long: `List the stored profiles: name, the API's address, the access key masked,
and whether the API accepts the keys (GET /account). The profile the run
would use is marked with *. No secret is ever printed. Exit 4 when the API
refuses the keys of a profile, 1 when it cannot be reached.`,
		Example: "  acctadmin auth status",
		Args:    noArgs,
	}
	status.RunE = func(cmd *cobra.Command, _ []string) error {
		pf, path, err := readProfiles()
		if err != nil {
			return err
		}
		if len(pf.Profiles) == 0 {
			fmt.Fprintf(a.stdout, "no profiles in %s; store one with `acctadmin auth login --access-key AK --secret-key-stdin`\n", path)
			return nil
		}
		current, _ := a.profileName()
		names := make([]string, 0, len(pf.Profiles))
		for n := range pf.Profiles {
			names = append(names, n)
		}
		sort.Strings(names)
		tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "\tPROFILE\tBASE URL\tACCESS KEY\tKEYS")
		var first error
		for _, n := range names {
			p := pf.Profiles[n]
			mark := ""
			if n == current {
				mark = "*"
			}
			state := "accepted"
			if acct, err := a.checkProfile(p); err != nil {
				code, _ := describe(err)
				state = "not checked: no answer"
				if code == 4 {
					state = "REFUSED"
				}
				if first == nil {
					first = err
				}
			} else if acct.Email != "" {
				state += " (" + acct.Email + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", mark, n, redactURL(baseOr(p.BaseURL)), maskKey(p.AccessKey), state)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "profiles in %s\n", path)
		return first
	}

	logout := &cobra.Command{
		Use:     "logout --profile NAME",
		Short:   "Remove a stored profile",
		Example: "  acctadmin auth logout --profile test",
		Args:    noArgs,
	}
	logout.RunE = func(cmd *cobra.Command, _ []string) error {
		name, _ := a.profileName()
		pf, path, err := readProfiles()
		if err != nil {
			return err
		}
		if _, ok := pf.Profiles[name]; !ok {
			return usageErrorf("no profile %q in %s; see them with `acctadmin auth status`", name, path)
		}
		delete(pf.Profiles, name)
		if err := writeProfiles(pf, path); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "removed profile %s from %s\n", name, path)
		return nil
	}
	return group("auth", "Store, check and remove the keys' profiles", "  acctadmin auth status", login, status, logout)
}

// baseOr is the base URL of a profile, the production API when it has
// none.
func baseOr(u string) string {
	if u == "" {
		return acctadmin.DefaultBaseURL
	}
	return u
}

// checkProfile reads the account with the profile's keys.
func (a *app) checkProfile(p profile) (*acctadmin.Account, error) {
	c, err := acctadmin.NewClient(p.AccessKey, p.SecretKey,
		acctadmin.WithBaseURL(baseOr(p.BaseURL)),
		acctadmin.WithUserAgent("acctadmin-cli/"+version),
		acctadmin.WithTimeout(a.timeout),
		acctadmin.WithMaxRetries(min(max(a.retries, 0), 100)))
	if err != nil {
		return nil, usageError{err}
	}
	return c.Account.Get(a.ctx)
}
