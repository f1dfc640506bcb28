package acctadmin

// DocumentsClient is a placeholder.
type DocumentsClient service
