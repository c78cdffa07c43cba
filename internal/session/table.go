package session

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
)

// WriteTable prints sessions as the `codewhale sessions` table: id prefix,
// age, message count, model, (workspace,) title.
func WriteTable(w io.Writer, ms []Meta, now time.Time, withWorkspace bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "ID\tUPDATED\tMSGS\tMODEL\t"
	if withWorkspace {
		head += "WORKSPACE\t"
	}
	fmt.Fprintln(tw, head+"TITLE")
	for _, m := range ms {
		row := []string{ShortID(m.ID), Age(m.UpdatedAt, now), strconv.Itoa(m.MessageCount), orDash(m.Model)}
		if withWorkspace {
			row = append(row, orDash(m.Workspace))
		}
		row = append(row, displayTitle(m))
		for i, c := range row {
			if i > 0 {
				io.WriteString(tw, "\t")
			}
			io.WriteString(tw, c)
		}
		io.WriteString(tw, "\n")
	}
	return tw.Flush()
}

func displayTitle(m Meta) string {
	switch {
	case m.NewerSchema > 0:
		return fmt.Sprintf("(written by a newer codewhale, schema_version %d)", m.NewerSchema)
	case m.Title == "":
		return "(untitled)" + archivedMark(m)
	}
	return m.Title + archivedMark(m)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func archivedMark(m Meta) string {
	if m.Archived {
		return " [archived]"
	}
	return ""
}
