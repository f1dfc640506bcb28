package acctadmintest_test

import (
	"testing"

	"github.com/acctadmin/acctadmin-go/acctadmintest"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
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
	dc, ok := acctadmintest.LookupJurisdiction(" district of columbia ")
	require.True(t, ok)
	require.Equal(t, "DC", dc.Abbreviation)
	ut, ok := acctadmintest.LookupJurisdiction("UT")
	require.True(t, ok)
	require.Equal(t, "Utah", ut.Name)
	// Stable across runs: the value is fixed here.
	utah, _ := acctadmintest.LookupJurisdiction("Utah")
	require.Equal(t, "e42a86ae-7bd5-5431-a377-00c95faa0e2c", utah.ID.String())
}

func TestJurisdictionAbbreviations(t *testing.T) {
	for _, in := range []string{"UT", "ut", " Ut ", "Utah", "UTAH"} {
		j, ok := acctadmintest.LookupJurisdiction(in)
		require.True(t, ok, in)
		require.Equal(t, "Utah", j.Name, in)
	}
	dc, ok := acctadmintest.LookupJurisdiction("dc")
	require.True(t, ok)
	require.Equal(t, "District of Columbia", dc.Name)
	for _, bad := range []string{"U", "UTA", "XX", "PR", "GU", "U.T.", ""} {
		_, ok := acctadmintest.LookupJurisdiction(bad)
		require.False(t, ok, bad)
	}
}
