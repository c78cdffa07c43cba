// Package handles keeps large tool outputs (a fetched page, an issue thread,
// a PR diff, an rlm value) out of the transcript: a tool stores the text
// and returns a small var handle; handle_read reads a slice of it on demand.
// The store lives as long as the session's process and is bounded by total
// size, dropping the oldest entries first.
package handles

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Handle is the bounded reference a tool returns in place of a large text.
// Its JSON shape is shared by every handle kind (sub-agent transcripts
// too): session_id names the owner ("web:…", "github:…", "agent:…").
type Handle struct {
	Kind        string `json:"kind"`
	SessionID   string `json:"session_id"`
	Name        string `json:"name"`
	Type        string `json:"type"`
	Length      int    `json:"length"`
	ReprPreview string `json:"repr_preview"`
	SHA256      string `json:"sha256"`
}

// PreviewRunes bounds a handle's preview.
const PreviewRunes = 160

// New describes text as a handle owned by sessionID.
func New(sessionID, name, typ, text string) Handle {
	sum := sha256.Sum256([]byte(text))
	return Handle{Kind: "var_handle", SessionID: sessionID, Name: name, Type: typ,
		Length: utf8.RuneCountInString(text), ReprPreview: preview(text), SHA256: hex.EncodeToString(sum[:])}
}

// preview is the text with its whitespace collapsed, cut to PreviewRunes.
// Only as many words are joined as the cut can show (a fetched page's text
// is ~1 MB); whole words end the joined prefix, so its runes are those of
// the whole joined text (TestPreviewMatchesJoiningEverything).
func preview(s string) string {
	var b strings.Builder
	n := 0
	for w := range strings.FieldsSeq(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		if n += utf8.RuneCountInString(w); n > PreviewRunes {
			break
		}
	}
	s = b.String()
	if r := []rune(s); len(r) > PreviewRunes {
		return string(r[:PreviewRunes-1]) + "…"
	}
	return s
}

// DefaultLimit is the store's default total size (bytes of text kept).
const DefaultLimit = 64 << 20

// Store holds handle texts in memory for the session.
type Store struct {
	mu    sync.Mutex
	limit int
	size  int
	next  int
	items map[string]entry // by session_id + "\x00" + name
	order []string
}

type entry struct {
	text string
}

// NewStore returns a store that keeps at most limit bytes (DefaultLimit
// when limit <= 0).
func NewStore(limit int) *Store {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return &Store{limit: limit, items: map[string]entry{}}
}

// Put stores text under a fresh session id with the given prefix
// ("web" gives "web:3") and returns its handle.
func (s *Store) Put(prefix, name, typ, text string) Handle {
	s.mu.Lock()
	s.next++
	sid := fmt.Sprintf("%s:%d", prefix, s.next)
	key := sid + "\x00" + name
	s.items[key] = entry{text: text}
	s.order = append(s.order, key)
	s.size += len(text)
	for s.size > s.limit && len(s.order) > 1 {
		old := s.order[0]
		s.order = s.order[1:]
		s.size -= len(s.items[old].text)
		delete(s.items, old)
	}
	s.mu.Unlock()
	return New(sid, name, typ, text)
}

// Get returns the text of a handle, if the store still has it.
func (s *Store) Get(sessionID, name string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.items[sessionID+"\x00"+name]
	return e.text, ok
}

// Owns reports whether sessionID has this store's form ("<prefix>:<n>" for
// one of prefixes).
func Owns(sessionID string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(sessionID, p+":") {
			return true
		}
	}
	return false
}

// List describes every handle the store still holds, oldest first.
func (s *Store) List() []Handle {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Handle, 0, len(s.order))
	for _, key := range s.order {
		sid, name, _ := strings.Cut(key, "\x00")
		out = append(out, New(sid, name, "", s.items[key].text))
	}
	return out
}
