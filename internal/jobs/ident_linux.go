package jobs

import (
	"os"
	"strconv"
	"strings"
)

// procStat reads pid's process group and start time (clock ticks since
// boot) from /proc.
func procStat(pid int) (pgrp int, start uint64, ok bool) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	// After the command: state(0) ppid(1) pgrp(2) … starttime(19).
	if len(fields) < 20 || fields[0] == "Z" || fields[0] == "X" {
		return 0, 0, false
	}
	pgrp, err1 := strconv.Atoi(fields[2])
	start, err2 := strconv.ParseUint(fields[19], 10, 64)
	return pgrp, start, err1 == nil && err2 == nil
}

// startTime identifies a live process across pid reuse.
func startTime(pid int) (uint64, bool) {
	_, start, ok := procStat(pid)
	return start, ok
}

// groupMembers lists the live processes in process group pgid.
func groupMembers(pgid int) []member {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []member
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, start, ok := procStat(pid); ok && g == pgid {
			out = append(out, member{pid: pid, start: start})
		}
	}
	return out
}
