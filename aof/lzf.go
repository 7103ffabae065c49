package aof

import "errors"

var errLZF = errors.New("invalid LZF compressed string")

// lzfDecompress expands in, which must produce exactly n bytes (liblzf's
// lzf_decompress, used by RDB for strings of more than 20 bytes).
func lzfDecompress(in []byte, n int) ([]byte, error) {
	out := make([]byte, 0, n)
	for ip := 0; ip < len(in); {
		ctrl := int(in[ip])
		ip++
		if ctrl < 32 { // literal run of ctrl+1 bytes
			run := ctrl + 1
			if ip+run > len(in) || len(out)+run > n {
				return nil, errLZF
			}
			out = append(out, in[ip:ip+run]...)
			ip += run
			continue
		}
		length := ctrl >> 5 // back reference
		if length == 7 {
			if ip >= len(in) {
				return nil, errLZF
			}
			length += int(in[ip])
			ip++
		}
		if ip >= len(in) {
			return nil, errLZF
		}
		ref := len(out) - ((ctrl & 0x1f) << 8) - 1 - int(in[ip])
		ip++
		length += 2
		if ref < 0 || len(out)+length > n {
			return nil, errLZF
		}
		for i := 0; i < length; i++ { // byte by byte: the copy may overlap
			out = append(out, out[ref+i])
		}
	}
	if len(out) != n {
		return nil, errLZF
	}
	return out, nil
}
