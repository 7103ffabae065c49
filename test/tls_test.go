package test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miniwatchd/miniwatchd/internal/resptest"
	goredis "github.com/redis/go-redis/v9"
)

// TLS: the TLS port beside the plain one, against redis-server (the same
// certificates for both), with go-redis and with redis-cli --tls.

// testPKI is a CA, a server certificate for 127.0.0.1 and a client
// certificate, as PEM files in a temporary directory.
type testPKI struct {
	dir                           string
	caFile, certFile, keyFile     string
	clientCertFile, clientKeyFile string
	caPool                        *x509.CertPool
	clientCert                    tls.Certificate
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	dir := t.TempDir()
	p := &testPKI{dir: dir}
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "miniwatchd test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	p.caPool = x509.NewCertPool()
	p.caPool.AddCert(caCert)
	p.caFile = writePEM(t, dir, "ca.crt", "CERTIFICATE", caDER)
	issue := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, _ := x509.MarshalECPrivateKey(key)
		return writePEM(t, dir, name+".crt", "CERTIFICATE", der), writePEM(t, dir, name+".key", "EC PRIVATE KEY", keyDER)
	}
	p.certFile, p.keyFile = issue("server", 2, x509.ExtKeyUsageServerAuth)
	p.clientCertFile, p.clientKeyFile = issue("client", 3, x509.ExtKeyUsageClientAuth)
	p.clientCert, err = tls.LoadX509KeyPair(p.clientCertFile, p.clientKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func writePEM(t *testing.T, dir, name, typ string, der []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// serverArgs are the TLS options of a server with its TLS port.
func (p *testPKI) serverArgs(tlsPort int, extra ...string) []string {
	return append([]string{"--tls-port", strconv.Itoa(tlsPort), "--tls-cert-file", p.certFile,
		"--tls-key-file", p.keyFile, "--tls-ca-cert-file", p.caFile}, extra...)
}

// clientConfig trusts the test CA, with the client certificate or not.
func (p *testPKI) clientConfig(withCert bool) *tls.Config {
	cfg := &tls.Config{RootCAs: p.caPool, ServerName: "127.0.0.1"}
	if withCert {
		cfg.Certificates = []tls.Certificate{p.clientCert}
	}
	return cfg
}

// dialTLS connects to 127.0.0.1:port over TLS and completes the handshake
// with one round trip (a TLS 1.3 server reports a refused client
// certificate only when the client reads).
func dialTLS(port int, cfg *tls.Config) (*respConn, error) {
	nc, err := tls.DialWithDialer(&net.Dialer{Timeout: 3 * time.Second}, "tcp",
		net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cfg)
	if err != nil {
		return nil, err
	}
	c := resptest.NewConn(nc)
	if _, err := c.Do("PING"); err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// startTLSPair starts redis-server and miniwatchd with TLS ports.
func startTLSPair(t *testing.T, pki *testPKI, extra ...string) (rp, op *serverProc, rport, oport int) {
	t.Helper()
	rport, oport = mustFreePort(t), mustFreePort(t)
	var err error
	if rp, err = startRedis(pki.serverArgs(rport, extra...)...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rp.stop)
	if op, err = startOurs(pki.serverArgs(oport, extra...)...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(op.stop)
	return rp, op, rport, oport
}

// runTLSScript runs the same commands over TLS and over the plain port.
func runTLSScript(t *testing.T, p *serverProc, tlsPort int, pki *testPKI, proto int) []string {
	var out []string
	rec := func(what, s string) { out = append(out, what+": "+strconv.Quote(s)) }
	c, err := dialTLS(tlsPort, pki.clientConfig(true))
	if err != nil {
		t.Fatalf("%s: TLS with a client certificate: %v", p.name, err)
	}
	defer c.Close()
	if proto == 3 {
		mustDo(t, c, "HELLO", "3")
	}
	for _, cmd := range [][]string{{"SET", "tk", "v"}, {"GET", "tk"}, {"INCR", "n"}, {"LPUSH", "l", "a", "b"},
		{"LRANGE", "l", "0", "-1"}, {"CONFIG", "GET", "tls-port"}, {"GET", strings.Repeat("k", 70000)}} {
		n := mustDo(t, c, cmd...)
		rec(strings.Join(cmd, " ")[:min(40, len(strings.Join(cmd, " ")))], strings.ReplaceAll(string(n.Raw), strconv.Itoa(tlsPort), "<TLSPORT>"))
	}
	// A large value both ways through the relay.
	big := strings.Repeat("x", 3<<20)
	rec("SET big", string(mustDo(t, c, "SET", "big", big).Raw))
	rec("STRLEN big", string(mustDo(t, c, "STRLEN", "big").Raw))
	if n := mustDo(t, c, "GET", "big"); n.Text() != big {
		t.Errorf("%s: GET big over TLS returned %d bytes", p.name, len(n.Text()))
	}
	plain, err := dialRESP(p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	rec("plain GET tk", string(mustDo(t, plain, "GET", "tk").Raw))
	_, err = dialTLS(tlsPort, pki.clientConfig(false))
	rec("TLS without a client certificate refused", strconv.FormatBool(err != nil))
	rec("CONFIG SET tls-auth-clients no", string(mustDo(t, plain, "CONFIG", "SET", "tls-auth-clients", "no").Raw))
	nc, err := dialTLS(tlsPort, pki.clientConfig(false))
	rec("TLS without a client certificate after no", strconv.FormatBool(err == nil))
	if err == nil {
		nc.Close()
	}
	rec("CONFIG SET tls-cert-file missing", string(mustDo(t, plain, "CONFIG", "SET", "tls-cert-file", "/nonexistent/x.crt").Raw))
	rec("CONFIG SET tls-protocols bad", string(mustDo(t, plain, "CONFIG", "SET", "tls-protocols", "SSLv3").Raw))
	rec("CONFIG SET tls-protocols TLSv1.3", string(mustDo(t, plain, "CONFIG", "SET", "tls-protocols", "TLSv1.3").Raw))
	v12 := pki.clientConfig(true)
	v12.MaxVersion = tls.VersionTLS12
	_, err = dialTLS(tlsPort, v12)
	rec("TLS 1.2 client refused under TLSv1.3 only", strconv.FormatBool(err != nil))
	rec("CONFIG SET tls-protocols TLSv1.2 TLSv1.3", string(mustDo(t, plain, "CONFIG", "SET", "tls-protocols", "TLSv1.2 TLSv1.3").Raw))
	next := mustFreePort(t)
	rec("CONFIG SET tls-port", string(mustDo(t, plain, "CONFIG", "SET", "tls-port", strconv.Itoa(next)).Raw))
	nc, err = dialTLS(next, pki.clientConfig(true))
	rec("new TLS port answers", strconv.FormatBool(err == nil))
	if err == nil {
		nc.Close()
	}
	_, err = dialTLS(tlsPort, pki.clientConfig(true))
	rec("old TLS port closed", strconv.FormatBool(err != nil))
	rec("TLS client kept", string(mustDo(t, c, "PING").Raw))
	rec("CONFIG SET tls-port 0", string(mustDo(t, plain, "CONFIG", "SET", "tls-port", "0").Raw))
	_, err = dialTLS(next, pki.clientConfig(true))
	rec("TLS port 0 closed", strconv.FormatBool(err != nil))
	return out
}

func TestDiffTLS(t *testing.T) {
	requireRedis(t)
	pki := newTestPKI(t)
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			rp, op, rport, oport := startTLSPair(t, pki)
			want := runTLSScript(t, rp, rport, pki, proto)
			got := runTLSScript(t, op, oport, pki, proto)
			t.Logf("redis-server over TLS:\n%s", strings.Join(want, "\n"))
			compareTranscripts(t, want, got)
		})
	}
}

// TestTLSGoRedis: go-redis over TLS with a client certificate, the plain
// port served beside it.
func TestTLSGoRedis(t *testing.T) {
	pki := newTestPKI(t)
	tport := mustFreePort(t)
	op, err := startOurs(pki.serverArgs(tport)...)
	if err != nil {
		t.Fatal(err)
	}
	defer op.stop()
	ctx := context.Background()
	tc := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:" + strconv.Itoa(tport), TLSConfig: pki.clientConfig(true), PoolSize: 4})
	defer tc.Close()
	pc := goredis.NewClient(&goredis.Options{Addr: op.addr})
	defer pc.Close()
	for i := 0; i < 50; i++ {
		if err := tc.Set(ctx, "k"+strconv.Itoa(i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := pc.DBSize(ctx).Result(); err != nil || n != 50 {
		t.Fatalf("plain DBSIZE after TLS writes = %d, %v", n, err)
	}
	if v, err := tc.Get(ctx, "k7").Result(); err != nil || v != "7" {
		t.Fatalf("TLS GET = %q, %v", v, err)
	}
	// Transactions and pub/sub over TLS.
	if _, err := tc.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.Incr(ctx, "ctr")
		p.Incr(ctx, "ctr")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sub := tc.Subscribe(ctx, "ch")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pc.Publish(ctx, "ch", "hello").Err(); err != nil {
		t.Fatal(err)
	}
	msg, err := sub.ReceiveMessage(ctx)
	if err != nil || msg.Payload != "hello" {
		t.Fatalf("TLS subscriber got %v, %v", msg, err)
	}
	// CLIENT LIST shows the TLS client's TCP address.
	list, err := pc.ClientList(ctx).Result()
	if err != nil || !strings.Contains(list, "addr=127.0.0.1:") || strings.Contains(list, "pipe:0") {
		t.Fatalf("CLIENT LIST: %v\n%s", err, list)
	}
}

// TestTLSRedisCli: redis-cli --tls with the CA and the client certificate.
func TestTLSRedisCli(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli is not on PATH")
	}
	pki := newTestPKI(t)
	tport := mustFreePort(t)
	op, err := startOurs(pki.serverArgs(tport)...)
	if err != nil {
		t.Fatal(err)
	}
	defer op.stop()
	run := func(args ...string) (string, error) {
		out, err := exec.Command(cli, append([]string{"-p", strconv.Itoa(tport), "--tls", "--cacert", pki.caFile}, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := run("--cert", pki.clientCertFile, "--key", pki.clientKeyFile, "SET", "cli", "tls"); err != nil || out != "OK" {
		t.Fatalf("redis-cli --tls SET: %q %v", out, err)
	}
	if out, err := run("--cert", pki.clientCertFile, "--key", pki.clientKeyFile, "GET", "cli"); err != nil || out != "tls" {
		t.Fatalf("redis-cli --tls GET: %q %v", out, err)
	}
	if out, _ := run("PING"); out == "PONG" {
		t.Fatalf("redis-cli without a client certificate got in (tls-auth-clients yes): %q", out)
	}
}
