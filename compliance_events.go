package acctadmin

// ComplianceEventsClient is a placeholder.
type ComplianceEventsClient service
