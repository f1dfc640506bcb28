package webhook

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIdentityIgnoresTokenText checks that the replay key depends on the
// event, not on the token that carried it.
func TestIdentityIgnoresTokenText(t *testing.T) {
	id := "6f1c2f0e-6a43-4bb4-9d55-0c0d7d1f2a01"
	a := newEvent(map[string]any{"event": "new-invoice", "invoice_id": id})
	b := newEvent(map[string]any{"eventName": "new-invoice", "data": map[string]any{"invoiceId": "{" + id + "}"}})
	c := newEvent(map[string]any{"event": "new-document", "document_id": id})
	assert.Equal(t, a.identity(), b.identity())
	assert.NotEqual(t, a.identity(), c.identity())
	assert.Len(t, a.identity(), 64)

	withJTI := newEvent(map[string]any{"event": "new-invoice", "invoice_id": id, "jti": "x"})
	otherJTI := newEvent(map[string]any{"event": "new-invoice", "invoice_id": id, "jti": "y"})
	assert.NotEqual(t, withJTI.identity(), otherJTI.identity())
	assert.NotEqual(t, a.identity(), withJTI.identity())
}
