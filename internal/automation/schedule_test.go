package automation

import (
	"strings"
	"testing"
	"time"
)

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// runs lists the first n run times after start, formatted in loc.
func runs(t *testing.T, spec string, loc *time.Location, start string, n int) string {
	t.Helper()
	s, err := ParseSchedule(spec, loc)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	at, err := time.ParseInLocation("2006-01-02 15:04", start, loc)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := 0; i < n; i++ {
		next, ok := s.Next(at)
		if !ok {
			out = append(out, "end")
			break
		}
		out = append(out, next.In(loc).Format("01-02 15:04 MST"))
		at = next
	}
	return strings.Join(out, ", ")
}

// README.md "Automations": FREQ=ONCE/HOURLY/DAILY/WEEKLY and 5-field cron schedules run in the automation's timezone, a time that does not exist that day is skipped and one that happens twice runs once.
func TestScheduleArithmetic(t *testing.T) {
	t.Parallel()
	ny, utc := mustLoc(t, "America/New_York"), time.UTC
	cases := []struct {
		spec  string
		loc   *time.Location
		start string
		n     int
		want  string
	}{
		{"FREQ=DAILY;AT=09:30", utc, "2026-01-30 10:00", 3, "01-31 09:30 UTC, 02-01 09:30 UTC, 02-02 09:30 UTC"},
		{"FREQ=DAILY;BYHOUR=9,17;BYMINUTE=0,30", utc, "2026-05-01 08:00", 5, "05-01 09:00 UTC, 05-01 09:30 UTC, 05-01 17:00 UTC, 05-01 17:30 UTC, 05-02 09:00 UTC"},
		{"FREQ=WEEKLY;BYDAY=MO,FR;AT=08:15", utc, "2026-12-01 00:00", 3, "12-04 08:15 UTC, 12-07 08:15 UTC, 12-11 08:15 UTC"},
		{"FREQ=HOURLY;BYMINUTE=15", utc, "2026-12-31 22:30", 3, "12-31 23:15 UTC, 01-01 00:15 UTC, 01-01 01:15 UTC"},
		{"FREQ=HOURLY;INTERVAL=6;BYHOUR=3", utc, "2026-06-01 10:00", 4, "06-01 15:00 UTC, 06-01 21:00 UTC, 06-02 03:00 UTC, 06-02 09:00 UTC"},
		{"FREQ=ONCE;AT=2026-12-05T09:00", ny, "2026-12-01 00:00", 2, "12-05 09:00 EST, end"},
		{"FREQ=ONCE;AT=2026-12-05T09:00:00Z", ny, "2026-12-01 00:00", 1, "12-05 04:00 EST"},
		// Month ends and leap years.
		{"0 12 31 * *", utc, "2026-01-31 13:00", 3, "03-31 12:00 UTC, 05-31 12:00 UTC, 07-31 12:00 UTC"},
		{"0 0 29 2 *", utc, "2026-03-01 00:00", 1, "02-29 00:00 UTC"},
		{"*/20 9-10 * * 1-5", utc, "2026-12-04 10:30", 3, "12-04 10:40 UTC, 12-07 09:00 UTC, 12-07 09:20 UTC"},
		{"@daily", utc, "2026-12-01 05:00", 1, "12-02 00:00 UTC"},
		// DST in New York: 2026-03-08 02:00 EST → 03:00 EDT; 2026-11-01 02:00 EDT → 01:00 EST.
		{"FREQ=DAILY;AT=02:30", ny, "2026-03-07 03:00", 2, "03-09 02:30 EDT, 03-10 02:30 EDT"},
		{"FREQ=DAILY;AT=01:30", ny, "2026-10-31 02:00", 3, "11-01 01:30 EDT, 11-02 01:30 EST, 11-03 01:30 EST"},
		{"FREQ=HOURLY", ny, "2026-11-01 00:30", 3, "11-01 01:00 EDT, 11-01 02:00 EST, 11-01 03:00 EST"},
		{"FREQ=DAILY;AT=09:00", ny, "2026-03-07 10:00", 2, "03-08 09:00 EDT, 03-09 09:00 EDT"},
		{"30 2 * * *", ny, "2026-03-07 03:00", 1, "03-09 02:30 EDT"},
	}
	for _, c := range cases {
		if got := runs(t, c.spec, c.loc, c.start, c.n); got != c.want {
			t.Errorf("%s from %s:\n got %s\nwant %s", c.spec, c.start, got, c.want)
		}
	}
	// 24 hourly runs across the fall-back day are 25 real hours apart at
	// the end: the repeated 01:00 runs once.
	s, _ := ParseSchedule("FREQ=HOURLY", ny)
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, ny)
	first := at
	for i := 0; i < 24; i++ {
		at, _ = s.Next(at)
	}
	if d := at.Sub(first); d != 25*time.Hour {
		t.Errorf("24 hourly runs over fall-back span %s", d)
	}
}

// README.md "Automations": a schedule outside the documented forms is refused with what is wrong.
func TestScheduleErrors(t *testing.T) {
	t.Parallel()
	for spec, want := range map[string]string{
		"":                                       "schedule is empty",
		"FREQ=MINUTELY":                          "FREQ must be ONCE, HOURLY, DAILY or WEEKLY",
		"FREQ=DAILY":                             "needs AT=HH:MM or BYHOUR",
		"FREQ=WEEKLY;AT=09:00":                   "needs BYDAY",
		"FREQ=WEEKLY;BYDAY=XX;AT=09:00":          "BYDAY values are MO",
		"FREQ=DAILY;AT=25:00":                    "is not HH:MM",
		"FREQ=DAILY;BYHOUR=24":                   "BYHOUR values must be 0..23",
		"FREQ=HOURLY;INTERVAL=0":                 "INTERVAL must be 1..24",
		"FREQ=ONCE":                              "needs AT=",
		"FREQ=ONCE;AT=tomorrow":                  "is not YYYY-MM-DDTHH:MM",
		"FREQ=ONCE;AT=2026-01-01T00:00;BYDAY=MO": "BYDAY does not apply to FREQ=ONCE",
		"every day":                              "neither FREQ=",
		"61 * * * *":                             "neither FREQ=",
	} {
		_, err := ParseSchedule(spec, time.UTC)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", spec, err, want)
		}
	}
}
