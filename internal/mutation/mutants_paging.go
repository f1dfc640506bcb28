package main

// The mutants of the paging engine's handling of hostile listings: a
// record whose id cannot be used, a whole listing sent in one long page,
// and a first page shortened by a server that caps its pages.
func init() {
	mutants = append(mutants,
		mutant{id: `paging-unusable-id-fails-page`, file: `values.go`, pkg: `.`,
			what: `a listed document whose id is not a UUID fails its whole page`,
			from: `			*id = listedID(u)
		}
	}
	return nil`,
			to: `			*id = listedID(u)
		} else {
			return err
		}
	}
	return nil`,
			run: `TestDocumentsWithAnUnusableIDCostOnlyThemselves|TestPagingOnGeneratedServers`},
		mutant{id: `paging-long-page-ignored`, file: `internal/paging/walk.go`, pkg: `.`,
			what: `a page longer than the limit, back at later offsets while downloads are in flight, taken for an ignored offset`,
			from: `	case whole:
		// Not gone over whole yet`,
			to: `	case false:
		// Not gone over whole yet`,
			run: `TestPagingTakesAPageLongerThanTheLimitForTheWholeListing|TestPagingOnGeneratedServers`},
		mutant{id: `paging-invoices-short-page-ends`, file: `pagination.go`, pkg: `.`,
			what: `a short first page of the invoices taken for the whole listing, though a capping server sends one`,
			from: `last = n == 0 || n < len(r.prev) || long && !paging.HoldsRowTwice(l.id, items)`,
			to:   `last = n == 0 || n < len(r.prev) || long && !paging.HoldsRowTwice(l.id, items) || l.unpaged && n < l.limit`,
			run:  `TestInvoicesAllReadsPastAPageACappingServerShortened|TestStableListingsOnGeneratedServers`},
	)
}
