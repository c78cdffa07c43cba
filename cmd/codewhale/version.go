package main

import "runtime/debug"

// codewhaleVersion is the version this binary reports: the -X value when
// the build set one, else the main module's version from the build
// information (a tag or pseudo-version for `go install …@version`, and for
// a build in a git checkout), else "devel" with the commit when known.
func codewhaleVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionFrom(info)
}

// versionFrom is codewhaleVersion's answer for one build's information.
func versionFrom(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel+" + s.Value[:12]
		}
	}
	return "devel"
}
