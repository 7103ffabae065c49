package protocol

// AppendRepr appends s quoted as Redis's sdscatrepr quotes it: in double
// quotes, with \\ \" \n \r \t \a \b escaped and other bytes outside
// printable ASCII as \xHH (MONITOR lines, CONFIG REWRITE values, the
// command line in INFO's executable options).
func AppendRepr[S ~string | ~[]byte](b []byte, s S) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		default:
			if c >= 0x20 && c <= 0x7e {
				b = append(b, c)
			} else {
				const hex = "0123456789abcdef"
				b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
			}
		}
	}
	return append(b, '"')
}
