package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/provider"
)

// legacyLedger lists the documents already imported, one path a line, so a
// session the user deleted is not imported again.
const legacyLedger = ".legacy-imported"

// legacyDoc is the single-document session format of CONTRACT.md §12.2 that
// the upstream tool writes as <id>.json.
type legacyDoc struct {
	SchemaVersion int `json:"schema_version"`
	Metadata      struct {
		ID              string          `json:"id"`
		Title           string          `json:"title"`
		CreatedAt       time.Time       `json:"created_at"`
		UpdatedAt       time.Time       `json:"updated_at"`
		Model           string          `json:"model"`
		ModelProvider   string          `json:"model_provider"`
		Workspace       string          `json:"workspace"`
		Mode            *string         `json:"mode"`
		ParentSessionID string          `json:"parent_session_id"`
		Archived        bool            `json:"archived"`
		Usage           *provider.Usage `json:"usage"`
	} `json:"metadata"`
	Messages     []json.RawMessage `json:"messages"`
	SystemPrompt json.RawMessage   `json:"system_prompt"`
}

// ImportLegacy copies single-document sessions (<id>.json, e.g. from
// ~/.deepseek/sessions) into journals under Dir(home) when no journal of
// that id exists and the document was not imported before. Documents with a
// newer schema_version or that cannot be parsed are skipped and reported in
// the error; the source files are never modified. It returns the imported
// ids.
func ImportLegacy(home, legacyDir string, o Options) ([]string, error) {
	des, err := os.ReadDir(legacyDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading legacy sessions in %s: %w", legacyDir, err)
	}
	dir := Dir(home)
	done := readLedger(dir)
	var ids []string
	var errs []error
	for _, de := range des {
		src := filepath.Join(legacyDir, de.Name())
		if !de.Type().IsRegular() || !strings.HasSuffix(de.Name(), ".json") || done[src] {
			continue
		}
		id, err := importDoc(dir, src, &o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if id != "" {
			ids = append(ids, id)
		}
		appendLedger(dir, src)
	}
	return ids, errors.Join(errs...)
}

func importDoc(dir, src string, o *Options) (string, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return "", fmt.Errorf("importing %s: %w", src, err)
	}
	var doc legacyDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("importing %s: not a session document: %w", src, err)
	}
	if doc.SchemaVersion > SchemaVersion {
		return "", &NewerSchemaError{Path: src, Version: doc.SchemaVersion}
	}
	md := doc.Metadata
	if md.ID == "" {
		md.ID = strings.TrimSuffix(filepath.Base(src), ".json")
	}
	if ValidID(md.ID) != nil {
		return "", fmt.Errorf("importing %s: invalid session id %q", src, md.ID)
	}
	if _, err := os.Stat(filepath.Join(dir, md.ID+journalExt)); err == nil {
		return "", nil
	}
	red := newRedactor(o.Secrets)
	msgs := make([]provider.Message, 0, len(doc.Messages))
	for _, raw := range doc.Messages {
		if m, ok := legacyMessage(raw); ok {
			msgs = append(msgs, red.message(m))
		}
	}
	var sys string
	_ = json.Unmarshal(doc.SystemPrompt, &sys)
	st := state{Title: clip(red.text(md.Title), maxTitle), Model: md.Model, ModelProvider: md.ModelProvider,
		Workspace: md.Workspace, Archived: md.Archived}
	if md.Mode != nil {
		st.Mode = *md.Mode
	}
	if md.Usage != nil {
		st.Usage = *md.Usage
	}
	if t, p := titleAndPreview(msgs); st.Title == "" {
		st.Title, st.Preview = t, p
	} else {
		st.Preview = p
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the sessions directory: %w", err)
	}
	// The imported lines carry the document's last update time.
	updated := md.UpdatedAt
	wo := &Options{Now: func() time.Time { return updated }, noSync: o.noSync}
	w := &writer{dir: dir, id: md.ID, path: filepath.Join(dir, md.ID+journalExt), opts: wo, red: red,
		header: record{Type: lineHeader, SchemaVersion: SchemaVersion, ID: md.ID, CreatedAt: md.CreatedAt, Parent: md.ParentSessionID}}
	if err := w.replaceWith(msgs, red.text(sys), st); err != nil {
		return "", err
	}
	return md.ID, w.close()
}

// legacyMessage decodes one message leniently: a tool result's content may
// be a string or a list of text blocks; unknown blocks are dropped.
func legacyMessage(raw json.RawMessage) (provider.Message, bool) {
	var m struct {
		Role    provider.Role     `json:"role"`
		Content []json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &m) != nil || !validRole(m.Role) {
		return provider.Message{}, false
	}
	out := provider.Message{Role: m.Role}
	for _, rb := range m.Content {
		var b provider.Block
		if json.Unmarshal(rb, &b) != nil {
			var alt struct {
				provider.Block
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			if json.Unmarshal(rb, &alt) != nil {
				continue
			}
			b = alt.Block
			for i, c := range alt.Content {
				if i > 0 {
					b.Content += "\n"
				}
				b.Content += c.Text
			}
		}
		if b.Type != "" {
			out.Content = append(out.Content, b)
		}
	}
	return out, true
}

func readLedger(dir string) map[string]bool {
	f, err := os.Open(filepath.Join(dir, legacyLedger))
	if err != nil {
		return map[string]bool{}
	}
	defer f.Close()
	done := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		done[sc.Text()] = true
	}
	return done
}

func appendLedger(dir, src string) {
	f, err := os.OpenFile(filepath.Join(dir, legacyLedger), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(src + "\n")
}
