package acctadmintest_test

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
)

func TestJurisdictionTable(t *testing.T) {
	js := acctadmintest.Jurisdictions()
	require.Len(t, js, 51)
	seen := map[uuid.UUID]bool{}
	for _, j := range js {
		require.False(t, seen[j.ID])
		seen[j.ID] = true
		require.Equal(t, uuid.NewSHA1(acctadmintest.JurisdictionNamespace, []byte(j.Name)), j.ID)
		byID, ok := acctadmintest.LookupJurisdictionID(j.ID)
		require.True(t, ok)
		require.Equal(t, j, byID)
	}
	// Stable across runs: the value is fixed here.
	utah, _ := acctadmintest.LookupJurisdiction("Utah")
	require.Equal(t, "e42a86ae-7bd5-5431-a377-00c95faa0e2c", utah.ID.String())
}

// TestLookupJurisdiction: a jurisdiction is found by its name or its
// two-letter abbreviation, in any case and with spaces around; anything
// else, territories included, is found by neither.
func TestLookupJurisdiction(t *testing.T) {
	cases := []struct {
		in, name, abbreviation string // name "" when not found
	}{
		{"UT", "Utah", "UT"},
		{"ut", "Utah", "UT"},
		{" Ut ", "Utah", "UT"},
		{"Utah", "Utah", "UT"},
		{"UTAH", "Utah", "UT"},
		{"dc", "District of Columbia", "DC"},
		{" district of columbia ", "District of Columbia", "DC"},
		{"U", "", ""},
		{"UTA", "", ""},
		{"XX", "", ""},
		{"PR", "", ""},
		{"GU", "", ""},
		{"U.T.", "", ""},
		{"", "", ""},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%q", tc.in), func(t *testing.T) {
			j, ok := acctadmintest.LookupJurisdiction(tc.in)
			require.Equal(t, tc.name != "", ok)
			if ok {
				require.Equal(t, tc.name, j.Name)
				require.Equal(t, tc.abbreviation, j.Abbreviation)
			}
		})
	}
}
