package config

import (
	"strings"
)

// Validity checks of single values (Redis's isValid* callbacks of the
// table rows).

// checkShutdownFlags is Redis's isValidShutdownOnSigFlags.
func checkShutdownFlags(v int) string {
	if v&1 != 0 && v&2 != 0 {
		return "shutdown options SAVE and NOSAVE can't be used simultaneously"
	}
	return ""
}

func checkActiveDefrag(v string) string {
	if v == "yes" {
		// As the reference build (Debian's, without Redis's jemalloc fork)
		// answers: miniwatchd has no defragmenter either.
		return "Active defragmentation cannot be enabled: it requires a Redis server compiled " +
			"with a modified Jemalloc like the one shipped by default with the Redis source distribution"
	}
	return ""
}

// isBaseName is Redis's pathIsBaseName.
func isBaseName(p string) bool { return !strings.ContainsAny(p, "/\\") }

func checkDBFilename(v string) string {
	if !isBaseName(v) {
		return "dbfilename can't be a path, just a filename"
	}
	return ""
}

func checkAOFFilename(v string) string {
	if v == "" {
		return "appendfilename can't be empty"
	}
	if !isBaseName(v) {
		return "appendfilename can't be a path, just a filename"
	}
	return ""
}

func checkAOFDirname(v string) string {
	if v == "" {
		return "appenddirname can't be empty"
	}
	if !isBaseName(v) {
		return "appenddirname can't be a path, just a dirname"
	}
	return ""
}

func checkHostname(v string) string {
	if len(v) >= 256 {
		return "Hostnames must be less than 256 characters"
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return "Hostnames may only contain alphanumeric characters, hyphens or dots"
		}
	}
	return ""
}

// checkProcTitleTemplate is Redis's validateProcTitleTemplate: the template
// must expand (sdstemplate: {name} variables, "{{" for '{') with known
// variables only, to something that is not blank once trimmed of spaces.
// The title is empty when validating, and {listen-addr}, {port},
// {tls-port} and {config-file} never expand to nothing.
func checkProcTitleTemplate(v string) string {
	const bad = "template format is invalid or contains unknown variables"
	var out strings.Builder
	for p := v; p != ""; {
		i := strings.IndexByte(p, '{')
		if i < 0 {
			out.WriteString(p)
			break
		}
		out.WriteString(p[:i])
		p = p[i+1:]
		if p == "" {
			return bad
		}
		if p[0] == '{' {
			out.WriteByte('{')
			p = p[1:]
			continue
		}
		j := strings.IndexByte(p, '}')
		if j < 0 {
			return bad
		}
		switch p[:j] {
		case "title", "server-mode", "unixsocket":
			// empty for a validation (no cluster, sentinel or unix socket)
		case "listen-addr", "config-file", "port", "tls-port":
			out.WriteByte('x')
		default:
			return bad
		}
		p = p[j+1:]
	}
	if strings.Trim(out.String(), " ") == "" {
		return bad
	}
	return ""
}
