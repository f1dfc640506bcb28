package acctadmin

// RegisteredAgentProductsClient is a placeholder.
type RegisteredAgentProductsClient service
