package acctadmin

// CompaniesClient is a placeholder.
type CompaniesClient service
