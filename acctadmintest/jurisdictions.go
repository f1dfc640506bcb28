package acctadmintest

import (
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// Jurisdiction is one of the jurisdictions the fake knows: the 50 US states
// and the District of Columbia.
type Jurisdiction struct {
	// ID is stable across runs: the SHA-1 name-based UUID of Name in
	// JurisdictionNamespace.
	ID uuid.UUID
	// Name is the full name, as the API writes it ("Utah").
	Name string
	// Abbreviation is the two-letter postal code ("UT").
	Abbreviation string
}

// JurisdictionNamespace is the UUID namespace from which every
// jurisdiction's ID is derived with uuid.NewSHA1, so the IDs are the same in
// every run and on every machine.
var JurisdictionNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://github.com/acctadmin/acctadmin-go/acctadmintest/jurisdictions"))

var jurisdictionTable = func() []Jurisdiction {
	names := []struct{ name, abbr string }{
		{"Alabama", "AL"}, {"Alaska", "AK"}, {"Arizona", "AZ"}, {"Arkansas", "AR"},
		{"California", "CA"}, {"Colorado", "CO"}, {"Connecticut", "CT"}, {"Delaware", "DE"},
		{"District of Columbia", "DC"}, {"Florida", "FL"}, {"Georgia", "GA"}, {"Hawaii", "HI"},
		{"Idaho", "ID"}, {"Illinois", "IL"}, {"Indiana", "IN"}, {"Iowa", "IA"},
		{"Kansas", "KS"}, {"Kentucky", "KY"}, {"Louisiana", "LA"}, {"Maine", "ME"},
		{"Maryland", "MD"}, {"Massachusetts", "MA"}, {"Michigan", "MI"}, {"Minnesota", "MN"},
		{"Mississippi", "MS"}, {"Missouri", "MO"}, {"Montana", "MT"}, {"Nebraska", "NE"},
		{"Nevada", "NV"}, {"New Hampshire", "NH"}, {"New Jersey", "NJ"}, {"New Mexico", "NM"},
		{"New York", "NY"}, {"North Carolina", "NC"}, {"North Dakota", "ND"}, {"Ohio", "OH"},
		{"Oklahoma", "OK"}, {"Oregon", "OR"}, {"Pennsylvania", "PA"}, {"Rhode Island", "RI"},
		{"South Carolina", "SC"}, {"South Dakota", "SD"}, {"Tennessee", "TN"}, {"Texas", "TX"},
		{"Utah", "UT"}, {"Vermont", "VT"}, {"Virginia", "VA"}, {"Washington", "WA"},
		{"West Virginia", "WV"}, {"Wisconsin", "WI"}, {"Wyoming", "WY"},
	}
	out := make([]Jurisdiction, len(names))
	for i, n := range names {
		out[i] = Jurisdiction{
			ID:           uuid.NewSHA1(JurisdictionNamespace, []byte(n.name)),
			Name:         n.name,
			Abbreviation: n.abbr,
		}
	}
	return out
}()

// Jurisdictions returns the fixed table of jurisdictions, in alphabetical
// order of name. The caller may modify the returned slice.
func Jurisdictions() []Jurisdiction {
	return append([]Jurisdiction(nil), jurisdictionTable...)
}

// LookupJurisdiction finds a jurisdiction by its full name ("Utah") or its
// two-letter postal abbreviation ("UT"), ignoring case and surrounding
// space. Every parameter and body field of the API that takes a
// jurisdiction name goes through it, so both forms work everywhere.
func LookupJurisdiction(name string) (Jurisdiction, bool) {
	name = strings.TrimSpace(name)
	for _, j := range jurisdictionTable {
		if strings.EqualFold(j.Name, name) || len(name) == 2 && strings.EqualFold(j.Abbreviation, name) {
			return j, true
		}
	}
	return Jurisdiction{}, false
}

// LookupJurisdictionID finds a jurisdiction by its ID.
func LookupJurisdictionID(id uuid.UUID) (Jurisdiction, bool) {
	for _, j := range jurisdictionTable {
		if j.ID == id {
			return j, true
		}
	}
	return Jurisdiction{}, false
}

// mustJurisdiction resolves a name given to a seeding helper; an unknown
// name is a mistake in the calling test, so it panics.
func mustJurisdiction(helper, name string) Jurisdiction {
	j, ok := LookupJurisdiction(name)
	if !ok {
		panic("acctadmintest: " + helper + ": unknown jurisdiction " + strconv.Quote(name))
	}
	return j
}
