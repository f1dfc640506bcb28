module github.com/acctadmin/acctadmin-go/internal/publish

go 1.23

require golang.org/x/mod v0.22.0
