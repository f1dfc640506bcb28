package main

import (
	"errors"
	"fmt"
	"testing"

	acctadmin "github.com/acctadmin/acctadmin-go"
)

// TestParseUnlock holds parseUnlock to its contract over every
// combination of the three flags given or not and of amounts well formed
// or not, above zero or not: it gives a plan only for a card with both
// ceilings, each an amount above zero, the one per document at most the
// total, exactly as written; it gives nothing (and no error) when no flag
// is given; and any other input is an exit-2 error.
func TestParseUnlock(t *testing.T) {
	const card = "1c0b2f0e-8b1a-4c3d-9e5f-0a1b2c3d4e5f"
	cards := []string{card, "", "not-a-card"}
	amounts := []string{"", "30", "30.00", "60", "25.005", "0", "0.00", "-1", "lots", "6O", "1e3", " 30", "0.01"}
	plans := 0
	for _, c := range cards {
		for _, each := range amounts {
			for _, total := range amounts {
				for given := 0; given < 8; given++ {
					cardGiven, eachGiven, totalGiven := given&1 != 0, given&2 != 0, given&4 != 0
					name := fmt.Sprintf("card=%v:%q each=%v:%q total=%v:%q", cardGiven, c, eachGiven, each, totalGiven, total)
					p, err := parseUnlock(cardGiven, eachGiven, totalGiven, c, each, total)
					if !cardGiven && !eachGiven && !totalGiven {
						if p != nil || err != nil {
							t.Fatalf("%s: got %+v, %v; want nothing", name, p, err)
						}
						continue
					}
					e, eerr := acctadmin.ParseMoney(each)
					tt, terr := acctadmin.ParseMoney(total)
					valid := cardGiven && eachGiven && totalGiven && c == card &&
						eerr == nil && terr == nil && e.Cmp(acctadmin.Money{}) > 0 && tt.Cmp(acctadmin.Money{}) > 0 && e.Cmp(tt) <= 0
					if !valid {
						var ue usageError
						if p != nil || !errors.As(err, &ue) {
							t.Fatalf("%s: got %+v, %v; want an exit-2 error", name, p, err)
						}
						continue
					}
					if err != nil || p == nil {
						t.Fatalf("%s: got %+v, %v; want a plan", name, p, err)
					}
					if p.card.String() != card || p.each.Cmp(e) != 0 || p.total.Cmp(tt) != 0 {
						t.Fatalf("%s: got card %s, each %s, total %s", name, p.card, p.each, p.total)
					}
					plans++
				}
			}
		}
	}
	if plans == 0 {
		t.Fatal("no combination gave a plan")
	}
}
