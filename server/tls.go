package server

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// TLS with Go's crypto/tls (Redis's tls.c): tls-port listens beside the
// plain port on the same bind addresses. A TLS connection is accepted and
// its handshake done on its own goroutine; then the plaintext is relayed
// over a Unix socketpair whose server end goes to the event loop exactly
// as an accepted TCP socket does (serveConn), so TLS clients run through
// the one command path (parser, dispatch, replies, limits) and CLIENT LIST
// shows their TCP addresses. maxclients is checked before the handshake
// (the client is just dropped, as in Redis); protected mode after it.
//
// The parameters: tls-cert-file and tls-key-file (a PEM key, encrypted
// the legacy PEM way with tls-key-file-pass), tls-ca-cert-file and
// tls-ca-cert-dir (the CAs of client certificates), tls-auth-clients
// yes|no|optional, tls-protocols (the lowest and highest version named
// bound the versions), tls-ciphers (OpenSSL or IANA names of TLS 1.2
// suites), tls-ciphersuites (TLS 1.3: Go offers all three of its suites,
// so a list must name them all), tls-session-caching (session tickets).
// Any change reloads the configuration (config.c applyTlsCfg); new
// handshakes use it, established connections keep theirs. A configuration
// that cannot be loaded fails CONFIG SET with Redis's "Unable to update TLS
// configuration. Check server logs." and the reason in the log.

// tlsParams are the parameters whose change reloads the TLS configuration.
var tlsReloadParams = []string{"tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-ca-cert-file",
	"tls-ca-cert-dir", "tls-auth-clients", "tls-protocols", "tls-ciphers", "tls-ciphersuites",
	"tls-prefer-server-ciphers", "tls-session-caching", "tls-session-cache-size",
	"tls-session-cache-timeout", "tls-dh-params-file"}

var errTLSConfig = errors.New("Unable to update TLS configuration. Check server logs.")

// tlsPortLocked is tls-port.
func (s *Server) tlsPortLocked() int { return int(s.paramInt("tls-port")) }

// tlsStartLocked registers the apply steps of the TLS parameters.
func (s *Server) tlsStartLocked() {
	s.params.onApply(applyTLSConfig, tlsReloadParams...)
	s.params.onApply(applyTLSPort, "tls-port")
}

// applyTLSConfig reloads the configuration while TLS is on.
func applyTLSConfig(s *Server) error {
	if s.tlsPortLocked() == 0 {
		return nil
	}
	cfg, err := s.buildTLSConfigLocked()
	if err != nil {
		s.log.Warn(err.Error())
		return errTLSConfig
	}
	s.tlsCfg.Store(cfg)
	return nil
}

// applyTLSPort opens (or moves, or closes) the TLS port's listeners.
func applyTLSPort(s *Server) error {
	port := s.tlsPortLocked()
	if port != 0 && s.tlsCfg.Load() == nil {
		if err := applyTLSConfig(s); err != nil {
			return err
		}
	}
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if !s.lns.listening {
		return nil
	}
	if err := s.rebindLocked(&s.lns.tls, bindAddrs(s.cfg.Bind), port, true); err != nil {
		return errors.New("Unable to listen on this port. Check server logs.")
	}
	return nil
}

// listenTLSLocked opens the TLS port at start (lnMu).
func (s *Server) listenTLSLocked() error {
	port := s.tlsPortLocked()
	if port == 0 {
		return nil
	}
	cfg, err := s.buildTLSConfigLocked()
	if err != nil {
		s.log.Warn(err.Error())
		return errors.New("Failed to configure TLS. Check logs for more info.")
	}
	s.tlsCfg.Store(cfg)
	binds := bindAddrs(s.cfg.Bind)
	lns, _, err := s.openPort(binds, port, "TLS")
	if err != nil {
		return err
	}
	s.lns.tls = portListeners{binds: append([]string(nil), binds...), port: port, lns: lns}
	return nil
}

// buildTLSConfigLocked builds the server's tls.Config from the parameters;
// the error is the line to log.
func (s *Server) buildTLSConfigLocked() (*tls.Config, error) {
	p := s.paramText
	certFile, keyFile := p("tls-cert-file"), p("tls-key-file")
	if certFile == "" {
		return nil, errors.New("No tls-cert-file configured!")
	}
	if keyFile == "" {
		return nil, errors.New("No tls-key-file configured!")
	}
	cert, err := loadKeyPair(certFile, keyFile, p("tls-key-file-pass"))
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	switch p("tls-auth-clients") {
	case "yes":
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	case "optional":
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	}
	caFile, caDir := p("tls-ca-cert-file"), p("tls-ca-cert-dir")
	if caFile == "" && caDir == "" && cfg.ClientAuth != tls.NoClientCert {
		return nil, errors.New("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when " +
			"tls-cluster, tls-replication or tls-auth-clients are enabled!")
	}
	if caFile != "" || caDir != "" {
		pool, err := loadCAs(caFile, caDir)
		if err != nil {
			return nil, err
		}
		cfg.ClientCAs = pool
	}
	if cfg.MinVersion, cfg.MaxVersion, err = parseTLSProtocols(p("tls-protocols")); err != nil {
		return nil, err
	}
	if cfg.CipherSuites, err = parseTLSCiphers(p("tls-ciphers")); err != nil {
		return nil, err
	}
	if err := checkTLSCiphersuites(p("tls-ciphersuites")); err != nil {
		return nil, err
	}
	cfg.SessionTicketsDisabled = p("tls-session-caching") != "yes"
	return cfg, nil
}

// loadKeyPair reads the certificate chain and the key, decrypting a key
// encrypted the legacy PEM way ("Proc-Type: 4,ENCRYPTED") with pass.
func loadKeyPair(certFile, keyFile, pass string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, errors.New("Failed to load certificate: " + certFile + ": " + strerror(err))
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, errors.New("Failed to load private key: " + keyFile + ": " + strerror(err))
	}
	if block, _ := pem.Decode(keyPEM); block != nil {
		switch {
		case block.Type == "ENCRYPTED PRIVATE KEY":
			return tls.Certificate{}, errors.New("Failed to load private key: " + keyFile +
				": PKCS#8 encrypted keys are not supported; encrypt it as a legacy PEM key (openssl rsa -aes256)")
		//lint:ignore SA1019 the legacy PEM encryption is what tls-key-file-pass decrypts here
		case x509.IsEncryptedPEMBlock(block): //nolint:staticcheck
			der, err := x509.DecryptPEMBlock(block, []byte(pass)) //nolint:staticcheck
			if err != nil {
				return tls.Certificate{}, errors.New("Failed to load private key: " + keyFile + ": " + err.Error())
			}
			keyPEM = pem.EncodeToMemory(&pem.Block{Type: block.Type, Bytes: der})
		}
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, errors.New("Failed to load certificate: " + certFile + ": " + err.Error())
	}
	return cert, nil
}

// loadCAs reads the CA certificates of a file and of every file of a
// directory.
func loadCAs(file, dir string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	var files []string
	if file != "" {
		files = append(files, file)
	}
	if dir != "" {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, errors.New("Failed to configure CA certificate(s) file/directory: " + dir + ": " + strerror(err))
		}
		for _, e := range entries {
			if e.Type().IsRegular() || e.Type()&os.ModeSymlink != 0 {
				files = append(files, filepath.Join(dir, e.Name()))
			}
		}
	}
	found := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			if f == file {
				return nil, errors.New("Failed to configure CA certificate(s) file/directory: " + f + ": " + strerror(err))
			}
			continue
		}
		if pool.AppendCertsFromPEM(b) {
			found = true
		} else if f == file {
			return nil, errors.New("Failed to configure CA certificate(s) file/directory: " + f + ": no certificate found")
		}
	}
	if !found {
		return nil, errors.New("Failed to configure CA certificate(s) file/directory: no certificate found")
	}
	return pool, nil
}

// parseTLSProtocols reads tls-protocols ("" is TLSv1.2 and TLSv1.3, as
// Redis's default); Go takes a range, from the lowest named to the highest.
func parseTLSProtocols(v string) (lo, hi uint16, err error) {
	if strings.TrimSpace(v) == "" {
		return tls.VersionTLS12, tls.VersionTLS13, nil
	}
	for _, w := range strings.Fields(v) {
		var ver uint16
		switch strings.ToLower(w) {
		case "tlsv1":
			ver = tls.VersionTLS10
		case "tlsv1.1":
			ver = tls.VersionTLS11
		case "tlsv1.2":
			ver = tls.VersionTLS12
		case "tlsv1.3":
			ver = tls.VersionTLS13
		default:
			return 0, 0, errors.New("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.")
		}
		if lo == 0 || ver < lo {
			lo = ver
		}
		hi = max(hi, ver)
	}
	return lo, hi, nil
}

// opensslCiphers maps OpenSSL's names of the TLS 1.2 suites Go has to
// Go's IDs.
var opensslCiphers = map[string]uint16{
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-AES128-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-ECDSA-AES256-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
}

// parseTLSCiphers reads tls-ciphers, an OpenSSL cipher list: the suites
// it names (OpenSSL or IANA names) in its order; a list of only OpenSSL
// keywords and modifiers (DEFAULT, HIGH, !aNULL ...) leaves Go's secure
// defaults; a list naming nothing Go knows fails, as OpenSSL's "no cipher
// match".
func parseTLSCiphers(v string) ([]uint16, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	byIANA := map[string]uint16{}
	for _, cs := range tls.CipherSuites() {
		byIANA[cs.Name] = cs.ID
	}
	var ids []uint16
	keywordsOnly := true
	for _, w := range strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		if id, ok := opensslCiphers[w]; ok {
			ids = append(ids, id)
			continue
		}
		if id, ok := byIANA[w]; ok {
			ids = append(ids, id)
			continue
		}
		if !isOpenSSLCipherKeyword(w) {
			keywordsOnly = false
		}
	}
	if len(ids) == 0 && !keywordsOnly {
		return nil, errors.New("Failed to configure ciphers: " + v + ": no cipher match")
	}
	return ids, nil
}

// isOpenSSLCipherKeyword reports an OpenSSL cipher-list word that selects
// or modifies by class rather than naming a suite.
func isOpenSSLCipherKeyword(w string) bool {
	if w == "" || strings.ContainsAny(w[:1], "!-+@") {
		return true
	}
	switch strings.ToUpper(w) {
	case "DEFAULT", "ALL", "HIGH", "MEDIUM", "COMPLEMENTOFDEFAULT", "COMPLEMENTOFALL", "ECDHE", "EECDH",
		"AESGCM", "CHACHA20", "AES", "AES128", "AES256", "ECDSA", "RSA", "AEAD", "SHA256", "SHA384", "TLSV1.2":
		return true
	}
	return false
}

// checkTLSCiphersuites checks tls-ciphersuites (TLS 1.3). Go's crypto/tls
// always offers its three TLS 1.3 suites, so only a list that names all
// of them can be honoured.
func checkTLSCiphersuites(v string) error {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	named := map[string]bool{}
	for _, w := range strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ' ' }) {
		named[w] = true
	}
	for _, want := range []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"} {
		if !named[want] {
			return errors.New("Failed to configure TLSv1.3 ciphersuites: " + v + ": Go's crypto/tls always offers " +
				"TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384 and TLS_CHACHA20_POLY1305_SHA256")
		}
	}
	return nil
}

// serveTLSConn accepts one connection of the TLS port: maxclients first,
// then the handshake, then the relay to the event loop.
func (s *Server) serveTLSConn(conn net.Conn) {
	cfg := s.tlsCfg.Load()
	s.mu.Lock()
	full := len(s.clients) >= s.cfg.MaxClients
	keepalive := s.paramInt("tcp-keepalive")
	s.mu.Unlock()
	if full || cfg == nil {
		// No handshake yet: nothing can be written, the client is dropped
		// (Redis's acceptCommonHandler).
		s.stats.rejectedConnections.Add(1)
		conn.Close()
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tuneTCP(tc, keepalive)
	}
	tc := tls.Server(conn, cfg)
	tc.SetDeadline(time.Now().Add(10 * time.Second))
	if err := tc.Handshake(); err != nil {
		s.log.Debug("Error accepting a client connection: " + err.Error())
		tc.Close()
		return
	}
	tc.SetDeadline(time.Time{})
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		s.log.Warn("Error accepting a client connection: " + err.Error())
		tc.Close()
		return
	}
	relay, err := fileConn(fds[0], "miniwatchd-tls-relay")
	if err != nil {
		syscall.Close(fds[1])
		tc.Close()
		return
	}
	inner, err := fileConn(fds[1], "miniwatchd-tls-server")
	if err != nil {
		relay.Close()
		tc.Close()
		return
	}
	s.wg.Add(1)
	go func() { // the client's bytes to the event loop
		defer s.wg.Done()
		io.Copy(relay, tc)
		relay.Close()
		tc.Close()
	}()
	s.wg.Add(1)
	go func() { // the event loop's replies to the client
		defer s.wg.Done()
		io.Copy(tc, relay)
		tc.Close()
		relay.Close()
	}()
	s.serveConn(tlsConn{UnixConn: inner.(*net.UnixConn), remote: conn.RemoteAddr(), local: conn.LocalAddr()})
}

// tlsConn is the event loop's end of a TLS client's relay: a Unix socket
// that reports the client's TCP addresses (CLIENT LIST, protected mode).
type tlsConn struct {
	*net.UnixConn
	remote, local net.Addr
}

func (c tlsConn) RemoteAddr() net.Addr { return c.remote }
func (c tlsConn) LocalAddr() net.Addr  { return c.local }
