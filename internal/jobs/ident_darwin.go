package jobs

import (
	"golang.org/x/sys/unix"
)

func kinfoStart(kp *unix.KinfoProc) uint64 {
	tv := kp.Proc.P_starttime
	return uint64(tv.Sec)*1_000_000 + uint64(tv.Usec)
}

// startTime identifies a live process across pid reuse (microseconds since
// the epoch).
func startTime(pid int) (uint64, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) {
		return 0, false
	}
	return kinfoStart(kp), true
}

// groupMembers lists the processes in process group pgid.
func groupMembers(pgid int) []member {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return nil
	}
	out := make([]member, 0, len(kps))
	for i := range kps {
		out = append(out, member{pid: int(kps[i].Proc.P_pid), start: kinfoStart(&kps[i])})
	}
	return out
}
