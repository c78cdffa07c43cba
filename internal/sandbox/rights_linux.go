package sandbox

import (
	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// writableAccess is what a writable root grants. It is go-landlock's RWDirs
// spelled out, without the right to create device nodes (MAKE_BLOCK,
// MAKE_CHAR), and with renames and links between writable roots (REFER)
// and connect(2) to the pathname sockets in them (RESOLVE_UNIX, which
// kernels below Landlock ABI 9 do not restrict at all). A device node made
// in the workspace names a disk or a device by number, and writing it
// reaches what no path rule covers: run as root, `mknod ./blk b 7 0` and a
// write to it changed a disk image outside the workspace. The capability
// drop (caps_linux.go) refuses mknod too; this rule holds where a command
// keeps CAP_MKNOD all the same. Links are covered as well: Landlock checks
// a new link to a device node against the same two rights.
const writableAccess landlock.AccessFSSet = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir |
	ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
	ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSym | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
	ll.AccessFSRefer | ll.AccessFSResolveUnix

// writableDirs makes the hierarchies under dirs writable (writableAccess).
// PathAccess asks only for rights the kernel has: on an older ABI the
// rights it lacks are left out, as RWDirs would leave them.
func writableDirs(dirs ...string) landlock.FSRule {
	return landlock.PathAccess(writableAccess, dirs...)
}
