package sandbox

// Landlock ABI versions that close the ways from a command to the
// processes and services outside its sandbox.
const (
	// scopingABI scopes signals and abstract unix sockets to the
	// command's own domain (LANDLOCK_SCOPE_SIGNAL, _ABSTRACT_UNIX_SOCKET).
	scopingABI = 6
	// resolveUnixABI restricts connect(2) to pathname unix sockets
	// (LANDLOCK_ACCESS_FS_RESOLVE_UNIX), granted in the writable roots only.
	resolveUnixABI = 9
)
