package acctadmin

// ResourcesClient is a placeholder.
type ResourcesClient service
