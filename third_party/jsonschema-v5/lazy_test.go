package jsonschema

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

var drafts = []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020}

// TestMain checks, before any test compiles a schema, that loading the
// package compiled no meta-schema: that work is what the patch defers.
func TestMain(m *testing.M) {
	for _, d := range drafts {
		if d.meta != nil {
			fmt.Fprintf(os.Stderr, "%v meta-schema compiled at init\n", d)
			os.Exit(1)
		}
	}
	os.Exit(m.Run())
}

// TestConcurrentFirstUse runs first (tests run in file order), so its
// goroutines race to compile the meta-schemas.
func TestConcurrentFirstUse(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(d *Draft) {
			defer wg.Done()
			c := NewCompiler()
			c.Draft = d
			url := fmt.Sprintf("mem://c%p.json", c)
			if err := c.AddResource(url, strings.NewReader(`{"type": "string", "minLength": 2}`)); err != nil {
				errs <- err
				return
			}
			s, err := c.Compile(url)
			if err != nil {
				errs <- err
				return
			}
			if s.Validate("x") == nil {
				errs <- fmt.Errorf("%v: \"x\" passed minLength 2", d)
			}
		}(drafts[i%len(drafts)])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func compileString(t *testing.T, d *Draft, schema string) (*Schema, error) {
	t.Helper()
	c := NewCompiler()
	c.Draft = d
	if err := c.AddResource("mem://s.json", strings.NewReader(schema)); err != nil {
		t.Fatal(err)
	}
	return c.Compile("mem://s.json")
}

func TestMetaSchemaStillRejectsInvalidSchemas(t *testing.T) {
	for _, d := range drafts {
		t.Run(d.String(), func(t *testing.T) {
			_, err := compileString(t, d, `{"type": 5}`)
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("compile of {\"type\": 5} = %v, want a SchemaError from the meta-schema", err)
			}
			if d.meta == nil {
				t.Fatalf("%v meta-schema not compiled after first use", d)
			}
			if !strings.Contains(fmt.Sprintf("%#v", err), "type") {
				t.Fatalf("error does not name the keyword: %#v", err)
			}
		})
	}
}

func TestExplicitDollarSchemaUsesDraftMeta(t *testing.T) {
	s, err := compileString(t, Draft7, `{"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if s.meta != Draft2020.meta || s.meta == nil {
		t.Fatalf("schema meta = %p, want Draft2020 meta %p", s.meta, Draft2020.meta)
	}
	if err := s.Validate(map[string]any{"n": 0}); err == nil {
		t.Fatal("n=0 validated against minimum 1")
	}
	if err := s.Validate(map[string]any{"n": 3}); err != nil {
		t.Fatalf("n=3: %v", err)
	}
	// A schema that is itself a draft's meta-schema URL resolves to it.
	c := NewCompiler()
	m, err := c.Compile("https://json-schema.org/draft/2019-09/schema")
	if err != nil || m != Draft2019.meta {
		t.Fatalf("compile of the 2019-09 meta URL = %p, %v; want %p", m, err, Draft2019.meta)
	}
	if err := m.Validate(map[string]any{"type": 5}); err == nil {
		t.Fatal("2019-09 meta-schema accepted {\"type\": 5}")
	}
}
