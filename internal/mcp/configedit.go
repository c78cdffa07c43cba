package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/codewhale/codewhale/internal/atomicfile"
)

// NewServer is a server entry to add with AddServer. Fields are written in
// this order, empty ones omitted.
type NewServer struct {
	Command           string            `json:"command,omitempty"`
	Args              []string          `json:"args,omitempty"`
	Env               map[string]string `json:"env,omitempty"`
	URL               string            `json:"url,omitempty"`
	Transport         string            `json:"transport,omitempty"`
	Headers           map[string]string `json:"headers,omitempty"`
	EnvHeaders        map[string]string `json:"env_headers,omitempty"`
	BearerTokenEnvVar string            `json:"bearer_token_env_var,omitempty"`
	ConnectTimeout    float64           `json:"connect_timeout,omitempty"`
	ExecuteTimeout    float64           `json:"execute_timeout,omitempty"`
	Enabled           *bool             `json:"enabled,omitempty"`
	Required          bool              `json:"required,omitempty"`
}

// AddServer adds server name to the mcp.json at path (created when absent).
// It refuses a name that exists and an entry that would not be usable. Other
// keys and their order are kept; the write is atomic.
func AddServer(path, name string, entry NewServer) error {
	raw, err := checkedEntry(name, entry)
	if err != nil {
		return err
	}
	return editServers(path, addEdit(path, name, raw))
}

// checkedEntry encodes entry, refusing one that would not be usable.
func checkedEntry(name string, entry NewServer) (json.RawMessage, error) {
	raw, err := json.Marshal(entry)
	if err != nil {
		return nil, err
	}
	// A ${VAR} that is unset here may be set where the server runs; the
	// caller warns about it (UnsetVars) rather than refusing.
	if s := parseServer(name, raw, nil); s.Problem != "" && len(s.Unset) == 0 {
		return nil, fmt.Errorf("server '%s': %s", name, s.Problem)
	}
	return raw, nil
}

// UnsetVars are the ${VAR} references of entry that have no value here
// and no default.
func UnsetVars(name string, entry NewServer) []string {
	raw, err := json.Marshal(entry)
	if err != nil {
		return nil
	}
	return parseServer(name, raw, nil).Unset
}

func addEdit(path, name string, raw json.RawMessage) func(*object) error {
	return func(servers *object) error {
		if _, ok := servers.get(name); ok {
			return fmt.Errorf("server '%s' already exists in %s; remove it first", name, path)
		}
		servers.set(name, raw)
		return nil
	}
}

// RemoveServer deletes server name from the mcp.json at path.
func RemoveServer(path, name string) error {
	return editServers(path, func(servers *object) error {
		if !servers.remove(name) {
			return fmt.Errorf("no MCP server named '%s' in %s", name, path)
		}
		return nil
	})
}

// SetEnabled sets "enabled" on server name (and drops a "disabled" key so
// the two cannot disagree).
func SetEnabled(path, name string, enabled bool) error {
	return editServers(path, func(servers *object) error {
		raw, ok := servers.get(name)
		if !ok {
			return fmt.Errorf("no MCP server named '%s' in %s", name, path)
		}
		entry, err := parseObject(raw)
		if err != nil {
			return fmt.Errorf("server '%s' in %s is not a JSON object", name, path)
		}
		entry.remove("disabled")
		entry.set("enabled", json.RawMessage(fmt.Sprint(enabled)))
		b, err := json.Marshal(entry)
		if err != nil {
			return err
		}
		servers.set(name, b)
		return nil
	})
}

// editServers loads path (an absent file is an empty document), lets edit
// change the servers object, and writes the result atomically. The servers
// key already in use ("servers" or "mcpServers") is kept.
func editServers(path string, edit func(*object) error) error {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	_, err = editData(path, data, "servers", edit)
	return err
}

// editData is editServers over the file's bytes already read; newKey is
// the servers key of a document that has none yet. It returns the bytes
// written.
func editData(path string, data []byte, newKey string, edit func(*object) error) ([]byte, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if _, err := ParseConfig(path, data); err != nil {
		return nil, fmt.Errorf("%w; fix the file before editing it", err)
	}
	top, err := parseObject(data)
	if err != nil {
		return nil, &ConfigError{Path: path, Msg: err.Error()}
	}
	key := newKey
	if _, ok := top.get("mcpServers"); ok {
		key = "mcpServers"
	} else if _, ok := top.get("servers"); ok {
		key = "servers"
	}
	servers := object{}
	if raw, ok := top.get(key); ok {
		if servers, err = parseObject(raw); err != nil {
			return nil, &ConfigError{Path: path, Msg: fmt.Sprintf("%q must be an object", key)}
		}
	}
	if err := edit(&servers); err != nil {
		return nil, err
	}
	b, err := json.Marshal(servers)
	if err != nil {
		return nil, err
	}
	top.set(key, b)
	return writeJSON(path, top)
}

// writeJSON writes v indented by two spaces via a temp file and a rename,
// keeping the file's mode (0600 for a new file: it may hold tokens), and
// returns the bytes written.
func writeJSON(path string, v any) ([]byte, error) {
	compact, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), atomicfile.Write(path, out.Bytes(), 0o600, true)
}

// object is a JSON object that keeps its members' order, so editing one
// server leaves the rest of the file as the user wrote it.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("expected a JSON object")
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// set replaces key in place, or appends it.
func (o *object) set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].value = v
			return
		}
	}
	*o = append(*o, member{key, v})
}

func (o *object) remove(key string) bool {
	for i := range *o {
		if (*o)[i].key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return true
		}
	}
	return false
}

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
