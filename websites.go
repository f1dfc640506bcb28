package acctadmin

// WebsitesClient is a placeholder.
type WebsitesClient service
