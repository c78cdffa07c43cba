package agent

import (
	"fmt"
	"strings"

	"github.com/codewhale/codewhale/internal/tools/handles"
)

// NewHandleRead returns handle_read over m's transcripts alone; the session
// registers one over every handle source (toolset).
func NewHandleRead(m *Manager) *handles.Read { return handles.NewRead(m.HandleSource()) }

// HandleSource serves sub-agent transcripts ("agent:<id>", name
// "transcript") to handle_read.
func (m *Manager) HandleSource() handles.Source { return transcripts{m} }

type transcripts struct{ m *Manager }

func (transcripts) Prefixes() []string { return []string{"agent"} }

func (s transcripts) Text(sid, name string) (string, bool, error) {
	id, ok := strings.CutPrefix(sid, "agent:")
	if !ok {
		return "", false, nil
	}
	if name != "" && name != "transcript" {
		return "", true, fmt.Errorf("unknown handle name `%s`; sub-agent handles expose `transcript`", name)
	}
	text, err := s.m.Transcript(id)
	return text, true, err
}
