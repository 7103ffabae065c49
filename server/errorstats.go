package server

import (
	"sort"
	"strconv"
	"strings"
)

// Error statistics (Redis's afterErrorReply / incrementErrorCount and INFO
// errorstats): every error reply that counts in total_error_replies also
// counts under its prefix, the first word of the error text.

// errorStatsMax bounds the number of distinct prefixes kept, as Redis 7.2
// does (ERROR_STATS_NUMBER); Redis 7.0 keeps them all. Error texts can come
// from scripts (redis.error_reply), so without a bound a client could grow
// the table without limit. Errors with a new prefix past the bound still
// count in total_error_replies.
const errorStatsMax = 128

// countErrorLocked counts one error reply whose text (without the leading
// '-') is text, under its prefix: the text before the first space when the
// space is within the first 31 bytes (Redis searches the first 32 bytes of
// "-text"), "ERR" otherwise.
func (s *Server) countErrorLocked(text string) {
	s.stats.totalErrorReplies++
	prefix := "ERR"
	if i := strings.IndexByte(text[:min(len(text), 31)], ' '); i >= 0 {
		prefix = text[:i]
	}
	if n, ok := s.stats.errors[prefix]; ok {
		s.stats.errors[prefix] = n + 1
		return
	}
	if len(s.stats.errors) >= errorStatsMax {
		return
	}
	if s.stats.errors == nil {
		s.stats.errors = make(map[string]int64)
	}
	s.stats.errors[prefix] = 1
}

// countReplyErrorLocked counts the error reply at the start of reply (a
// RESP simple error, "-TEXT\r\n"), as written by a script run.
func (s *Server) countReplyErrorLocked(reply []byte) {
	text := ""
	if len(reply) > 0 && reply[0] == '-' {
		end := len(reply)
		if i := strings.IndexByte(string(reply[:min(len(reply), 64)]), '\r'); i >= 0 {
			end = i
		}
		text = string(reply[1:end])
	}
	s.countErrorLocked(text)
}

// infoErrorStats is INFO errorstats: one errorstat_<PREFIX>:count=N line
// per prefix, in byte order (Redis keeps them in a radix tree).
func (s *Server) infoErrorStats(b *strings.Builder) {
	names := make([]string, 0, len(s.stats.errors))
	for name := range s.stats.errors {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		b.WriteString("errorstat_")
		b.WriteString(name)
		b.WriteString(":count=")
		b.WriteString(strconv.FormatInt(s.stats.errors[name], 10))
		b.WriteString("\r\n")
	}
}
