package automation

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Schedule yields the run times of an automation.
type Schedule interface {
	// Next is the first run time strictly after t; false when there is
	// none (a one-off that has passed).
	Next(t time.Time) (time.Time, bool)
}

// ParseSchedule reads a schedule in loc:
//
//	FREQ=ONCE;AT=2026-12-05T09:00            (local to loc, or with an offset)
//	FREQ=HOURLY[;INTERVAL=N][;BYHOUR=H][;BYMINUTE=M][;BYDAY=MO,…]
//	FREQ=DAILY;AT=09:30  or  FREQ=DAILY;BYHOUR=9,17[;BYMINUTE=30]
//	FREQ=WEEKLY;BYDAY=MO,WE;AT=09:30  (or BYHOUR/BYMINUTE)
//	a five-field cron expression ("30 9 * * 1-5") or @daily, @hourly, …
//
// HOURLY's INTERVAL counts hours from BYHOUR (default 0) on each day, as
// cron's H/N does. Wall-clock times follow loc's DST rules: a time that does
// not exist on a day (the spring-forward gap) is skipped that day, and a time
// that happens twice (fall back) runs at its first occurrence only.
func ParseSchedule(spec string, loc *time.Location) (Schedule, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, fmt.Errorf("schedule is empty")
	}
	if loc == nil {
		loc = time.Local
	}
	if strings.HasPrefix(strings.ToUpper(spec), "FREQ=") {
		return parseRule(spec, loc)
	}
	sched, err := cron.ParseStandard(spec)
	if err != nil {
		return nil, fmt.Errorf("schedule %q is neither FREQ=ONCE|HOURLY|DAILY|WEEKLY;… nor a 5-field cron expression: %v", spec, err)
	}
	return cronSchedule{sched, loc}, nil
}

type cronSchedule struct {
	s   cron.Schedule
	loc *time.Location
}

func (c cronSchedule) Next(t time.Time) (time.Time, bool) {
	n := c.s.Next(t.In(c.loc))
	return n, !n.IsZero()
}

type once struct{ at time.Time }

func (o once) Next(t time.Time) (time.Time, bool) { return o.at, o.at.After(t) }

// wallClock runs at the given local times on the allowed weekdays.
type wallClock struct {
	loc   *time.Location
	days  [7]bool // by time.Weekday
	times []hm    // sorted
}

type hm struct{ h, m int }

func parseRule(spec string, loc *time.Location) (Schedule, error) {
	parts := map[string]string{}
	for _, kv := range strings.Split(spec, ";") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("schedule %q: %q is not KEY=VALUE", spec, kv)
		}
		parts[strings.ToUpper(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	freq := strings.ToUpper(parts["FREQ"])
	for k := range parts {
		if !allowedKey(freq, k) {
			return nil, fmt.Errorf("schedule %q: %s does not apply to FREQ=%s", spec, k, freq)
		}
	}
	if freq == "ONCE" {
		return parseOnce(spec, parts["AT"], loc)
	}
	w := wallClock{loc: loc}
	hours, minutes, err := times(spec, freq, parts)
	if err != nil {
		return nil, err
	}
	for _, h := range hours {
		for _, m := range minutes {
			w.times = append(w.times, hm{h, m})
		}
	}
	sort.Slice(w.times, func(i, j int) bool {
		return w.times[i].h*60+w.times[i].m < w.times[j].h*60+w.times[j].m
	})
	if err := w.parseDays(spec, freq, parts["BYDAY"]); err != nil {
		return nil, err
	}
	return w, nil
}

func allowedKey(freq, k string) bool {
	switch freq {
	case "ONCE":
		return k == "FREQ" || k == "AT"
	case "HOURLY":
		return k == "FREQ" || k == "INTERVAL" || k == "BYHOUR" || k == "BYMINUTE" || k == "BYDAY"
	case "DAILY", "WEEKLY":
		return k == "FREQ" || k == "AT" || k == "BYHOUR" || k == "BYMINUTE" || k == "BYDAY"
	}
	return k == "FREQ"
}

func parseOnce(spec, at string, loc *time.Location) (Schedule, error) {
	if at == "" {
		return nil, fmt.Errorf("schedule %q: FREQ=ONCE needs AT=YYYY-MM-DDTHH:MM", spec)
	}
	if t, err := time.Parse(time.RFC3339, at); err == nil {
		return once{t}, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, at, loc); err == nil {
			return once{t}, nil
		}
	}
	return nil, fmt.Errorf("schedule %q: AT=%q is not YYYY-MM-DDTHH:MM (local) or RFC 3339", spec, at)
}

// times returns the hours and minutes a rule runs at.
func times(spec, freq string, parts map[string]string) ([]int, []int, error) {
	minutes, err := list(spec, "BYMINUTE", parts["BYMINUTE"], 0, 59, []int{0})
	if err != nil {
		return nil, nil, err
	}
	if at := parts["AT"]; at != "" {
		if parts["BYHOUR"] != "" || parts["BYMINUTE"] != "" {
			return nil, nil, fmt.Errorf("schedule %q: give AT or BYHOUR/BYMINUTE, not both", spec)
		}
		h, m, ok := clock(at)
		if !ok {
			return nil, nil, fmt.Errorf("schedule %q: AT=%q is not HH:MM", spec, at)
		}
		return []int{h}, []int{m}, nil
	}
	switch freq {
	case "HOURLY":
		n := 1
		if v := parts["INTERVAL"]; v != "" {
			if n, err = strconv.Atoi(v); err != nil || n < 1 || n > 24 {
				return nil, nil, fmt.Errorf("schedule %q: INTERVAL must be 1..24 hours", spec)
			}
		}
		start, err := list(spec, "BYHOUR", parts["BYHOUR"], 0, 23, []int{0})
		if err != nil {
			return nil, nil, err
		}
		if len(start) != 1 {
			return nil, nil, fmt.Errorf("schedule %q: HOURLY takes one BYHOUR, the anchor INTERVAL counts from", spec)
		}
		var hours []int
		for h := start[0]; h < 24; h += n {
			hours = append(hours, h)
		}
		return hours, minutes, nil
	case "DAILY", "WEEKLY":
		if parts["BYHOUR"] == "" {
			return nil, nil, fmt.Errorf("schedule %q: FREQ=%s needs AT=HH:MM or BYHOUR", spec, freq)
		}
		hours, err := list(spec, "BYHOUR", parts["BYHOUR"], 0, 23, nil)
		return hours, minutes, err
	}
	return nil, nil, fmt.Errorf("schedule %q: FREQ must be ONCE, HOURLY, DAILY or WEEKLY", spec)
}

func clock(s string) (int, int, bool) {
	h, m, ok := strings.Cut(s, ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	return hh, mm, ok && err1 == nil && err2 == nil && hh >= 0 && hh < 24 && mm >= 0 && mm < 60
}

func list(spec, key, v string, lo, hi int, def []int) ([]int, error) {
	if v == "" {
		return def, nil
	}
	var out []int
	for _, p := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < lo || n > hi {
			return nil, fmt.Errorf("schedule %q: %s values must be %d..%d", spec, key, lo, hi)
		}
		out = append(out, n)
	}
	return out, nil
}

var weekdays = map[string]time.Weekday{"SU": time.Sunday, "MO": time.Monday, "TU": time.Tuesday,
	"WE": time.Wednesday, "TH": time.Thursday, "FR": time.Friday, "SA": time.Saturday}

func (w *wallClock) parseDays(spec, freq, v string) error {
	if v == "" {
		if freq == "WEEKLY" {
			return fmt.Errorf("schedule %q: FREQ=WEEKLY needs BYDAY (e.g. BYDAY=MO,WE)", spec)
		}
		for i := range w.days {
			w.days[i] = true
		}
		return nil
	}
	for _, d := range strings.Split(strings.ToUpper(v), ",") {
		wd, ok := weekdays[strings.TrimSpace(d)]
		if !ok {
			return fmt.Errorf("schedule %q: BYDAY values are MO, TU, WE, TH, FR, SA, SU", spec)
		}
		w.days[wd] = true
	}
	return nil
}

func (w wallClock) Next(t time.Time) (time.Time, bool) {
	local := t.In(w.loc)
	y, m, d := local.Date()
	for i := 0; i < 8; i++ {
		day := time.Date(y, m, d+i, 12, 0, 0, 0, w.loc) // noon: never in a DST gap
		if !w.days[day.Weekday()] {
			continue
		}
		for _, x := range w.times {
			c, ok := wallTime(day.Year(), day.Month(), day.Day(), x.h, x.m, w.loc)
			if ok && c.After(t) {
				return c, true
			}
		}
	}
	return time.Time{}, false
}

// wallTime is the instant the clocks in loc show h:m on that day: false in
// a DST gap, the first of the two instants when the time repeats.
func wallTime(y int, mo time.Month, d, h, m int, loc *time.Location) (time.Time, bool) {
	t := time.Date(y, mo, d, h, m, 0, 0, loc)
	if t.Hour() != h || t.Minute() != m || t.Day() != d {
		return time.Time{}, false
	}
	for _, back := range []time.Duration{30 * time.Minute, time.Hour, 2 * time.Hour} {
		if e := t.Add(-back); e.Hour() == h && e.Minute() == m && e.Day() == d {
			t = e
		}
	}
	return t, true
}
