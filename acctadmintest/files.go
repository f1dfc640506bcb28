package acctadmintest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// DefaultDPI is the resolution of a page image when the request gives
// none. Page images are US-letter pages (8.5 x 11 inches) rendered at 72,
// 150 or 300 dpi: the OpenAPI document holds these values and this
// default, and a test holds the two together.
const DefaultDPI = 150

// PagePixels returns the pixel size of a page image at dpi: 612x792 at 72,
// 1275x1650 at 150 and 2550x3300 at 300.
func PagePixels(dpi int) (width, height int) { return dpi * 17 / 2, dpi * 11 }

// maxPageMarks bounds the number of page-number marks drawn, and so the
// number of distinct images cached per resolution.
const maxPageMarks = 32

// pngCache keeps encoded page images, one per resolution and page mark.
type pngCache struct {
	mu sync.Mutex
	m  map[[2]int]*pngEntry
}

type pngEntry struct {
	once sync.Once
	data []byte
}

// get returns the encoded image of page n (from 0) at dpi, rendering it the
// first time; concurrent callers for the same image wait for one render.
func (pc *pngCache) get(dpi, n int) []byte {
	key := [2]int{dpi, min(n, maxPageMarks-1)}
	pc.mu.Lock()
	if pc.m == nil {
		pc.m = make(map[[2]int]*pngEntry)
	}
	e := pc.m[key]
	if e == nil {
		e = &pngEntry{}
		pc.m[key] = e
	}
	pc.mu.Unlock()
	e.once.Do(func() { e.data = renderPage(key[0], key[1]) })
	return e.data
}

// renderPage draws a black-on-white page: a border, a row of n+1 squares
// that tell the page number, and bars standing for lines of text. It is
// written as a 1-bit grayscale PNG straight from a packed bitmap, which
// encodes in milliseconds even at 300 dpi (the image/png encoder would
// expand every pixel).
func renderPage(dpi, n int) []byte {
	w, h := PagePixels(dpi)
	stride := (w + 7) / 8
	bits := bytes.Repeat([]byte{0xff}, stride*h) // 1 is white
	fill := func(x0, y0, x1, y1 int) {
		x0, x1 = max(x0, 0), min(x1, w)
		for y := max(y0, 0); y < min(y1, h) && x0 < x1; y++ {
			row := bits[y*stride : (y+1)*stride]
			for x := x0; x < x1; {
				if x%8 == 0 && x+8 <= x1 {
					row[x/8] = 0
					x += 8
					continue
				}
				row[x/8] &^= 0x80 >> (x % 8)
				x++
			}
		}
	}
	margin, stroke := dpi/2, max(1, dpi/72)
	fill(margin, margin, w-margin, margin+stroke)
	fill(margin, h-margin-stroke, w-margin, h-margin)
	fill(margin, margin, margin+stroke, h-margin)
	fill(w-margin-stroke, margin, w-margin, h-margin)

	sq := dpi / 6
	for i := 0; i <= n; i++ {
		x := margin + dpi/4 + i*(sq+sq/2)
		fill(x, margin+dpi/4, x+sq, margin+dpi/4+sq)
	}
	lineH, step := max(2, dpi/24), dpi/4
	for i, y := 0, margin+dpi; y < h-margin-dpi/2; i, y = i+1, y+step {
		// Line lengths vary with the line and the page, deterministically.
		frac := 55 + (i*37+n*11)%45
		fill(margin+dpi/4, y, margin+dpi/4+(w-2*margin-dpi/2)*frac/100, y+lineH)
	}
	return encodeGray1(w, h, bits)
}

// encodeGray1 writes a PNG of a 1-bit grayscale bitmap whose rows are
// packed most significant bit first.
func encodeGray1(w, h int, bits []byte) []byte {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		var hdr [8]byte
		binary.BigEndian.PutUint32(hdr[:4], uint32(len(data)))
		copy(hdr[4:], typ)
		out.Write(hdr[:])
		out.Write(data)
		crc := crc32.NewIEEE()
		crc.Write(hdr[4:])
		crc.Write(data)
		_ = binary.Write(&out, binary.BigEndian, crc.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 1, 0 // bit depth 1, grayscale; compression, filter, interlace 0
	chunk("IHDR", ihdr)

	var idat bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	stride := (w + 7) / 8
	for y := 0; y < h; y++ {
		_, _ = zw.Write([]byte{0}) // filter: none
		_, _ = zw.Write(bits[y*stride : (y+1)*stride])
	}
	_ = zw.Close()
	chunk("IDAT", idat.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}

// servePage answers GET .../:id/page/:page_number for a file of pages
// pages: the page number counts from 0 (not an integer: 400; outside the
// file: 404); dpi is 72, 150 or 300 (default 150; anything else: 400).
func (c *call) servePage(pages int) error {
	n, dpi, err := c.pageParams(pages)
	if err != nil {
		return err
	}
	data := c.f.pngs.get(dpi, n)
	h := c.w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	c.w.WriteHeader(http.StatusOK)
	_, _ = c.w.Write(data)
	return nil
}

// pageParams reads the page number of the path and the dpi of the query,
// for a file of pages pages.
func (c *call) pageParams(pages int) (n, dpi int, err error) {
	n, err = strconv.Atoi(c.str("page_number"))
	if err != nil {
		return 0, 0, invalid("page_number", "must be an integer")
	}
	dpi = c.num("dpi") // the document holds the values and the default
	if n < 0 || n >= pages {
		return 0, 0, notFound(fmt.Sprintf("page %d (the file has %d pages, counted from 0)", n, pages))
	}
	return n, dpi, nil
}

// serveFile answers a download: the PDF of a file, streamed, with its
// exact Content-Length and an attachment filename of title.pdf.
func (c *call) serveFile(title string, pages int, size int64) error {
	p := newPDF(title, pages, size)
	h := c.w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Content-Length", strconv.FormatInt(p.size(), 10))
	h.Set("Content-Disposition", attachment(orDefault(title, "document")+".pdf"))
	c.w.WriteHeader(http.StatusOK)
	_ = p.writeTo(c.w, func() bool { return c.r.Context().Err() == nil && c.f.ctx.Err() == nil })
	return nil
}

// attachment makes a Content-Disposition value. The quoted filename is
// plain ASCII; a name that is not also gets an RFC 8187 filename*.
func attachment(name string) string {
	var ascii, ext strings.Builder
	plain := true
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f || r > 0x7e:
			plain = false
			ascii.WriteByte('_')
		case r == '"' || r == '\\':
			ascii.WriteByte('\\')
			ascii.WriteRune(r)
		default:
			ascii.WriteRune(r)
		}
	}
	v := `attachment; filename="` + ascii.String() + `"`
	if plain {
		return v
	}
	for _, b := range []byte(name) {
		if b < 0x80 && (b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("!#$&+-.^_`|~", b) >= 0) {
			ext.WriteByte(b)
		} else {
			fmt.Fprintf(&ext, "%%%02X", b)
		}
	}
	return v + "; filename*=UTF-8''" + ext.String()
}

// pdfFile is a PDF laid out in three parts: head, padLen bytes of padding
// inside a stream object (generated while writing, never held in memory),
// and tail (the end of that object, the cross-reference table and the
// trailer).
type pdfFile struct {
	head   []byte
	padLen int64
	tail   []byte
}

func (p *pdfFile) size() int64 { return int64(len(p.head)) + p.padLen + int64(len(p.tail)) }

// padChunk is the repeated content of padding streams.
var padChunk = func() []byte {
	line := []byte("acctadmintest padding 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ\n")
	return bytes.Repeat(line, (64<<10)/len(line))
}()

// writeTo writes the file, checking alive between chunks of padding.
func (p *pdfFile) writeTo(w io.Writer, alive func() bool) error {
	if _, err := w.Write(p.head); err != nil {
		return err
	}
	for left := p.padLen; left > 0; {
		if !alive() {
			return io.ErrClosedPipe
		}
		n := min(left, int64(len(padChunk)))
		if _, err := w.Write(padChunk[:n]); err != nil {
			return err
		}
		left -= n
	}
	_, err := w.Write(p.tail)
	return err
}

// newPDF lays out a PDF 1.4 file with one US-letter page per page, each
// showing the title and its page number. When minSize is above the file's
// natural size (about 1 KiB), an unreferenced stream object pads the file
// to exactly minSize bytes (or a few bytes more when minSize is barely
// above the natural size).
func newPDF(title string, pages int, minSize int64) *pdfFile {
	pages = max(pages, 1)
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	kids := make([]string, pages)
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", 5+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	obj(fmt.Sprintf("<< /Title (%s) /Producer (acctadmintest) >>", pdfText(title)))
	for i := 0; i < pages; i++ {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 6+2*i))
		content := fmt.Sprintf("BT /F1 18 Tf 72 720 Td (%s) Tj ET\nBT /F1 12 Tf 72 690 Td (Page %d of %d) Tj ET", pdfText(title), i+1, pages)
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	}
	base := b.Bytes()

	// trailer writes the cross-reference table for the objects at offs,
	// placed at xrefAt.
	trailer := func(offs []int, xrefAt int) []byte {
		var t bytes.Buffer
		fmt.Fprintf(&t, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
		for _, o := range offs {
			fmt.Fprintf(&t, "%010d 00000 n \n", o)
		}
		fmt.Fprintf(&t, "trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xrefAt)
		return t.Bytes()
	}
	plain := &pdfFile{head: append(append([]byte(nil), base...), trailer(offsets, len(base))...)}
	if minSize <= plain.size() {
		return plain
	}

	// The padding object goes last, so the offsets before it stay put. Its
	// length and the position of the table change the digits written, so
	// find the largest padding that fits and fill the rest (under 4
	// bytes) with spaces between the object and the table.
	num := len(offsets) + 1
	padOffs := append(append([]int(nil), offsets...), len(base))
	layout := func(padLen int64, spaces int) *pdfFile {
		head := append(append([]byte(nil), base...), fmt.Sprintf("%d 0 obj\n<< /Length %d >>\nstream\n", num, padLen)...)
		end := "\nendstream\nendobj\n" + strings.Repeat(" ", spaces)
		xrefAt := len(head) + int(padLen) + len(end)
		return &pdfFile{head: head, padLen: padLen, tail: append([]byte(end), trailer(padOffs, xrefAt)...)}
	}
	padLen := max(0, minSize-plain.size()-200)
	for layout(padLen+1, 0).size() <= minSize {
		padLen++
	}
	p := layout(padLen, 0)
	if gap := minSize - p.size(); gap > 0 {
		p = layout(padLen, int(gap))
	}
	return p
}

// pdfText escapes s for a PDF literal string; characters outside printable
// ASCII become '?', as the standard fonts cannot show them anyway.
func pdfText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r > 0x7e:
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
