package acctadmin

// FilingProductsClient is a placeholder.
type FilingProductsClient service
