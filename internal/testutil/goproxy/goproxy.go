// Package goproxy lays out a file:// Go module proxy and a module that
// depends on it, for tests that run a real `go build` which must download
// a module (into its module cache) without a network.
package goproxy

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Greeting is what the module's program prints.
const Greeting = "hello from the module proxy"

// depMod is the dependency's go.mod.
const depMod = "module example.com/dep\n\ngo 1.21\n"

// Env is the environment that makes go use the proxy laid out in dir:
// GOPROXY, no checksum database, go.sum updated as needed, no toolchain
// download.
func Env(t testing.TB, dir string) []string {
	t.Helper()
	v := filepath.Join(dir, "example.com", "dep", "@v")
	if err := os.MkdirAll(v, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"list": "v1.0.0\n", "v1.0.0.info": `{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`,
		"v1.0.0.mod": depMod, "v1.0.0.zip": depZip(t)}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(v, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"GOPROXY=file://" + dir, "GOSUMDB=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}
}

// depZip is example.com/dep v1.0.0 as a module zip.
func depZip(t testing.TB) string {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	files := map[string]string{"go.mod": depMod,
		"dep.go": "package dep\n\n// Greeting is what the program prints.\nconst Greeting = \"" + Greeting + "\"\n"}
	for name, body := range files {
		f, err := zw.Create("example.com/dep@v1.0.0/" + name)
		if err == nil {
			_, err = f.Write([]byte(body))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// WriteModule writes example.com/tiny, a program that prints Greeting from
// example.com/dep, with a test, into dir.
func WriteModule(t testing.TB, dir string) {
	t.Helper()
	files := map[string]string{
		"go.mod": "module example.com/tiny\n\ngo 1.21\n\nrequire example.com/dep v1.0.0\n",
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/dep\"\n)\n\n" +
			"func main() { fmt.Println(greeting()) }\n\nfunc greeting() string { return dep.Greeting }\n",
		"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestGreeting(t *testing.T) {\n\tif greeting() == \"\" {\n\t\tt.Fatal(\"empty\")\n\t}\n}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
