package git

import (
	"strconv"
	"strings"
	"time"

	"github.com/codewhale/codewhale/internal/lazyre"
)

var (
	isoDate = lazyre.New(`^(\d{4})-(\d{1,2})-(\d{1,2})(?:[t ](\d{1,2}):(\d{2})(?::(\d{2}))?)?\s*(z|[+-]\d{2}:?\d{2})?$`)
	relDate = lazyre.New(`^(\d+)[\s.]*(second|minute|hour|day|week|month|year)s?(?:[\s.]+ago)?$`)
)

// parseApproxDate reads the --since/--until forms this package evaluates
// natively, with git's meaning: an ISO date with an optional time and zone
// (local time when no zone; a date alone keeps the current time of day, as
// git's approxidate does), "@<unix seconds>", "now", "yesterday", and
// "<n> <unit>s ago" (seconds to weeks counted in seconds, months and years
// on the calendar).
func parseApproxDate(s string, now time.Time) (int64, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "now":
		return now.Unix(), true
	case "yesterday":
		return now.Unix() - 24*3600, true
	}
	if rest, ok := strings.CutPrefix(s, "@"); ok {
		// git reads a number as seconds since 1970 only from nine digits
		// on (shorter ones may be dates): `@0` is not the epoch there.
		n, err := strconv.ParseInt(rest, 10, 64)
		return n, err == nil && n >= 100000000 && strings.Trim(rest, "0123456789") == ""
	}
	if m := isoDate().FindStringSubmatch(s); m != nil {
		return isoTime(m, now)
	}
	if m := relDate().FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return 0, false
		}
		local := now.Local()
		switch m[2] {
		case "month":
			return local.AddDate(0, -n, 0).Unix(), true
		case "year":
			return local.AddDate(-n, 0, 0).Unix(), true
		}
		unit := map[string]int64{"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400}[m[2]]
		return now.Unix() - int64(n)*unit, true
	}
	return 0, false
}

func isoTime(m []string, now time.Time) (int64, bool) {
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	year, month, day := num(m[1]), num(m[2]), num(m[3])
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return 0, false
	}
	loc := now.Location()
	if m[7] != "" {
		loc = zone(m[7])
	}
	local := now.In(loc)
	hour, minute, sec := local.Hour(), local.Minute(), local.Second()
	if m[4] != "" {
		hour, minute, sec = num(m[4]), num(m[5]), num(m[6])
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, 0, loc).Unix(), true
}

func zone(z string) *time.Location {
	if z == "z" {
		return time.UTC
	}
	z = strings.ReplaceAll(z, ":", "")
	h, _ := strconv.Atoi(z[1:3])
	mins, _ := strconv.Atoi(z[3:5])
	off := h*3600 + mins*60
	if z[0] == '-' {
		off = -off
	}
	return time.FixedZone("", off)
}
