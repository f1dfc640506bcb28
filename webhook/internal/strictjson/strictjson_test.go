package strictjson

import (
	"reflect"
	"strings"
	"testing"
)

// checkPlainAgrees fails when the fast path accepts b while the slow path
// refuses it or decodes it differently. It reports whether the fast path
// took b.
func checkPlainAgrees(t *testing.T, b []byte) bool {
	t.Helper()
	fast, ok := decodePlainObject(b)
	if !ok {
		return false
	}
	slow, err := decodeChecked(b)
	if err != nil {
		t.Fatalf("fast path accepted %q, slow path refuses it: %v", b, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fast path decoded %q as %#v, slow path as %#v", b, fast, slow)
	}
	return true
}

func TestDecodePlainObjectAgreesWithEncodingJSON(t *testing.T) {
	deep := func(n int) string { return strings.Repeat(`{"a":`, n-1) + `{}` + strings.Repeat(`}`, n-1) }
	deepArray := func(n int) string { return `{"a":` + strings.Repeat(`[`, n-1) + strings.Repeat(`]`, n-1) + `}` }
	taken := []string{
		`{}`,
		` {"event":"new-invoice","invoice_id":"1b4e28ba-2fa1-11d2-883f-0016d3cca427"} `,
		"\t{\n\"a\" : 1 ,\r\"b\":[ ]}\n",
		`{"n":[0,-0,1.5,-2e10,3E+2,4e-3,12345678901234567890123]}`,
		`{"t":true,"f":false,"z":null,"o":{},"a":[{},[],"",null]}`,
		`{"s":"esc \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00"}`,
		"{\"s\":\"héllo\",\"bad\":\"\xff\xfe\"}",
		`{"data":{"invoiceId":"x","company":{"id":"y","name":"Acme"}}}`,
		deep(maxDepth),
		deepArray(maxDepth),
	}
	for _, in := range taken {
		if !checkPlainAgrees(t, []byte(in)) {
			t.Errorf("fast path gave up on %q", in)
		}
	}
	declined := []string{
		``, ` `, `[]`, `"x"`, `1`, `null`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`,
		`{"a":1}x`, `{"a":1} {}`, `{"a":1}}`,
		`{"a":1,"a":2}`, `{"a":{"b":1,"b":1}}`, `{"a":1,"\u0061":2}`, `{"\u0061":1}`, `{"é":1}`,
		`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":+1}`, `{"a":0x1}`,
		`{"a":tru}`, `{"a":nul}`, `{"a":True}`,
		"{\"a\":\"\x01\"}", `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, `{"a":"open}`,
		`{'a':1}`, `{a:1}`,
		deep(maxDepth + 1), deepArray(maxDepth + 1),
	}
	for _, in := range declined {
		if checkPlainAgrees(t, []byte(in)) {
			t.Errorf("fast path took %q", in)
		}
	}
}

func FuzzDecodePlainObject(f *testing.F) {
	for _, s := range []string{
		`{"event":"new-invoice","invoice_id":"1b4e28ba-2fa1-11d2-883f-0016d3cca427","n":1.5e3}`,
		`{"a":[1,{"b":null}],"c":"\u00e9","d":true}`,
		`{"a":1,"a":2}`,
		`{"alg":"HS256","typ":"JWT","access_key":"k"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkPlainAgrees(t, b)
	})
}
