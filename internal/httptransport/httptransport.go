// Package httptransport is the one constructor of the HTTP transports
// codewhale's outbound clients use: the provider client, the model list,
// doctor's probe, MCP servers over HTTP and the Web tool. Every transport
// honours the networks people have, as Go's ProxyFromEnvironment defines
// them: HTTPS_PROXY, HTTP_PROXY and NO_PROXY (upper or lower case), and
// SSL_CERT_FILE / SSL_CERT_DIR for the trusted roots.
package httptransport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"sync"
	"time"
)

// Options adjust a transport. The zero value is the ordinary one.
type Options struct {
	// Dial replaces the dialer (a network policy's, which re-checks every
	// resolved address).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Direct never uses a proxy. A caller whose Dial must see the real
	// target sets it: through a proxy the dialer would only see the proxy.
	Direct bool
	// ResponseHeaderTimeout, MaxIdleConns and IdleConnTimeout override
	// the defaults when positive.
	ResponseHeaderTimeout time.Duration
	MaxIdleConns          int
	IdleConnTimeout       time.Duration
	// CertFile is SSL_CERT_FILE as the configuration read it; it is added
	// to the roots where the platform verifier ignores the variable.
	CertFile string
}

// New returns a transport with the options applied.
func New(o Options) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = http.ProxyFromEnvironment
	if o.Direct {
		t.Proxy = nil
	}
	if o.Dial != nil {
		t.DialContext = o.Dial
	}
	if o.ResponseHeaderTimeout > 0 {
		t.ResponseHeaderTimeout = o.ResponseHeaderTimeout
	}
	if o.MaxIdleConns > 0 {
		t.MaxIdleConns = o.MaxIdleConns
	}
	if o.IdleConnTimeout > 0 {
		t.IdleConnTimeout = o.IdleConnTimeout
	}
	if roots := extraRoots(o.CertFile); roots != nil {
		t.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	return t
}

// Client is an http.Client over the shared transport for certFile.
// Under --debug its requests are logged (SetDebug).
func Client(certFile string) *http.Client { return &http.Client{Transport: logged(Shared(certFile))} }

// Proxy is the proxy a request to target goes through ("" for a direct
// connection), as every transport from New decides it.
func Proxy(target string) (string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", err
	}
	p, err := http.ProxyFromEnvironment(&http.Request{URL: u})
	if err != nil || p == nil {
		return "", err
	}
	return p.Redacted(), nil
}

// extraRoots is the system pool plus file on the systems whose platform
// verifier ignores SSL_CERT_FILE (macOS, Windows); elsewhere Go reads
// SSL_CERT_FILE and SSL_CERT_DIR itself and nil keeps its pool.
func extraRoots(file string) *x509.CertPool {
	if file == "" || (runtime.GOOS != "darwin" && runtime.GOOS != "windows") {
		return nil
	}
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil
	}
	return pool
}

// shared are the process's transports for clients with no other options,
// one per trust-store file, so connections are reused across the requests
// of a session.
var shared = struct {
	sync.Mutex
	by map[string]*http.Transport
}{by: map[string]*http.Transport{}}

// Shared is the transport of clients that need no options but the
// configuration's SSL_CERT_FILE ("" = none).
func Shared(certFile string) http.RoundTripper {
	shared.Lock()
	defer shared.Unlock()
	t := shared.by[certFile]
	if t == nil {
		t = New(Options{CertFile: certFile})
		shared.by[certFile] = t
	}
	return t
}
