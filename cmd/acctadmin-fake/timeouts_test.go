package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// closedWithin reads conn until the server closes it and reports whether
// that happened before limit. Whatever the server answered first is
// returned.
func closedWithin(t *testing.T, conn net.Conn, limit time.Duration) (string, bool) {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(limit)))
	var got strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := conn.Read(buf)
		got.Write(buf[:n])
		if err == nil {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return got.String(), false
		}
		return got.String(), true // EOF or reset: the server closed it
	}
}

func TestServerTimeouts(t *testing.T) {
	vars, stop := start(t, "-addr", "127.0.0.1:0", "-access-key", "ak", "-secret-key", "sk",
		"-read-timeout", "300ms", "-write-timeout", "600ms", "-idle-timeout", "300ms")
	defer func() {
		_, err := stop()
		require.NoError(t, err)
	}()
	addr := strings.TrimPrefix(vars["ACCTADMIN_BASE_URL"], "http://")

	t.Run("a trickled body is cut off", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer conn.Close()
		_, err = io.WriteString(conn, "POST /callbacks HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
		require.NoError(t, err)
		// One byte every 100ms would take 10s; the server must give up
		// long before.
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := 0; i < 99; i++ {
				time.Sleep(100 * time.Millisecond)
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}()
		_, closed := closedWithin(t, conn, 5*time.Second)
		conn.Close()
		<-done
		require.True(t, closed, "the server still reads a body trickled for 5s")
	})

	t.Run("an idle connection is closed", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer conn.Close()
		_, err = io.WriteString(conn, "GET /callbacks HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		resp.Body.Close()
		_, closed := closedWithin(t, conn, 5*time.Second)
		require.True(t, closed, "an idle connection is kept for 5s")
	})

	t.Run("an answer that takes too long is cut off", func(t *testing.T) {
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		base := vars["ACCTADMIN_BASE_URL"]
		resp, err := client.Post(base+"/_fake/faults", "application/json", strings.NewReader(`{"path":"/callbacks","latency":"2s","count":1}`))
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusCreated, resp.StatusCode)
		status, body := getErr(client, base, "ak", "sk", "/callbacks")
		require.Zero(t, status, "an answer came after the write timeout: %s", body)
	})
}

// getErr is get for a request that may get no answer: status 0 then.
func getErr(client *http.Client, base, accessKey, secret, target string) (int, string) {
	req, err := http.NewRequest(http.MethodGet, base+target, nil)
	if err != nil {
		return -1, err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+token(accessKey, secret, req.URL.Path, nil))
	resp, err := client.Do(req)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
