package aof

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// FileType is the kind of a file listed in the manifest.
type FileType byte

// File types, as the manifest spells them.
const (
	TypeBase    FileType = 'b' // the snapshot the incremental files apply to
	TypeHistory FileType = 'h' // superseded by a rewrite, waiting for deletion
	TypeIncr    FileType = 'i' // commands logged after the base, in order
)

// FileInfo is one line of the manifest.
type FileInfo struct {
	Name string
	Seq  int64
	Type FileType
}

// Manifest lists the files of an AOF directory (Redis 7.0's aofManifest):
// at most one base, then history files, then the incremental files in
// sequence order. The data is the base followed by every incremental file.
type Manifest struct {
	Base    *FileInfo
	History []FileInfo
	Incr    []FileInfo
	BaseSeq int64 // sequence number of the newest base (curr_base_file_seq)
	IncrSeq int64 // sequence number of the newest incremental file
}

// Naming rules (Redis aof.c).
const (
	baseSuffix     = ".base"
	incrSuffix     = ".incr"
	rdbSuffix      = ".rdb"
	aofSuffix      = ".aof"
	manifestSuffix = ".manifest"
	tempPrefix     = "temp-"
)

// ManifestName returns the manifest's file name for appendfilename prefix.
func ManifestName(prefix string) string { return prefix + manifestSuffix }

// TempIncrName is the incremental file used while AOF is being turned on at
// run time, before the first base exists (Redis's getTempIncrAofName).
func TempIncrName(prefix string) string { return tempPrefix + prefix + incrSuffix }

// ManifestError is a manifest that cannot be read; Redis refuses to start.
type ManifestError struct {
	Line   int    // 1-based line number, 0 when not about one line
	Text   string // the offending line
	Reason string // Redis's message
}

func (e *ManifestError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("*** FATAL AOF MANIFEST FILE ERROR *** reading the manifest file, at line %d: '%s': %s", e.Line, e.Text, e.Reason)
	}
	return "*** FATAL AOF MANIFEST FILE ERROR *** " + e.Reason
}

// ParseManifest parses a manifest with Redis's aofLoadManifestFromFile
// rules: '#' lines are comments, each other line holds "file <name> seq
// <n> type <b|h|i>" pairs (in any order, keys case-insensitive, unknown
// keys ignored, values quoted as sdssplitargs reads them), at most one
// base, incremental sequence numbers strictly increasing.
func ParseManifest(data []byte) (*Manifest, error) {
	m := &Manifest{}
	var maxSeq int64
	lineNo := 0
	for len(data) > 0 {
		var raw []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i+1], data[i+1:]
		} else {
			raw, data = data, nil
		}
		lineNo++
		if raw[0] == '#' {
			continue
		}
		if len(raw) > maxLine || raw[len(raw)-1] != '\n' {
			return nil, &ManifestError{Reason: "The AOF manifest file contains too long line"}
		}
		line := bytes.Trim(raw, " \t\r\n")
		bad := func(reason string) error {
			return &ManifestError{Line: lineNo, Text: string(line), Reason: reason}
		}
		if len(line) == 0 {
			return nil, bad("Invalid AOF manifest file format")
		}
		argv, ok := protocol.SplitArgs(line)
		if !ok || len(argv) < 6 || len(argv)%2 != 0 {
			return nil, bad("Invalid AOF manifest file format")
		}
		var fi FileInfo
		for i := 0; i < len(argv); i += 2 {
			key, val := strings.ToLower(string(argv[i])), argv[i+1]
			switch key {
			case "file":
				fi.Name = string(val)
				if strings.ContainsRune(fi.Name, '/') {
					return nil, bad("File can't be a path, just a filename")
				}
			case "seq":
				fi.Seq = protocol.Atoll(val)
			case "type":
				if len(val) > 0 {
					fi.Type = FileType(val[0])
				}
			}
		}
		if fi.Name == "" || fi.Seq == 0 || fi.Type == 0 {
			return nil, bad("Invalid AOF manifest file format")
		}
		switch fi.Type {
		case TypeBase:
			if m.Base != nil {
				return nil, bad("Found duplicate base file information")
			}
			b := fi
			m.Base = &b
			m.BaseSeq = fi.Seq
		case TypeHistory:
			m.History = append(m.History, fi)
		case TypeIncr:
			if fi.Seq <= maxSeq {
				return nil, bad("Found a non-monotonic sequence number")
			}
			m.Incr = append(m.Incr, fi)
			m.IncrSeq, maxSeq = fi.Seq, fi.Seq
		default:
			return nil, bad("Unknown AOF file type")
		}
	}
	if lineNo == 0 {
		return nil, &ManifestError{Reason: "Found an empty AOF manifest"}
	}
	return m, nil
}

// Encode returns the manifest's text: base, history, then incremental
// files, one "file <name> seq <n> type <t>" line each (Redis's
// getAofManifestAsString; names that need it are quoted as sdscatrepr).
func (m *Manifest) Encode() []byte {
	var b []byte
	line := func(fi FileInfo) {
		b = append(b, "file "...)
		b = appendRepr(b, fi.Name)
		b = append(b, " seq "...)
		b = strconv.AppendInt(b, fi.Seq, 10)
		b = append(b, " type "...)
		b = append(b, byte(fi.Type), '\n')
	}
	if m.Base != nil {
		line(*m.Base)
	}
	for _, fi := range m.History {
		line(fi)
	}
	for _, fi := range m.Incr {
		line(fi)
	}
	return b
}

// appendRepr appends name as sdscatrepr quotes it when sdsneedsrepr says so
// (blanks, quotes, backslashes, non-printable bytes); else as is.
func appendRepr(b []byte, name string) []byte {
	needs := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '\\' || c == '"' || c == '\'' || c <= ' ' || c >= 0x7f {
			needs = true
			break
		}
	}
	if !needs {
		return append(b, name...)
	}
	b = append(b, '"')
	for i := 0; i < len(name); i++ {
		switch c := name[i]; c {
		case '\\', '"':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		case '\a':
			b = append(b, `\a`...)
		case '\b':
			b = append(b, `\b`...)
		default:
			if c >= ' ' && c < 0x7f {
				b = append(b, c)
			} else {
				b = append(b, fmt.Sprintf(`\x%02x`, c)...)
			}
		}
	}
	return append(b, '"')
}

// Clone returns a deep copy, which a caller changes and persists before it
// replaces the manifest in use (Redis's aofManifestDup).
func (m *Manifest) Clone() *Manifest {
	c := &Manifest{BaseSeq: m.BaseSeq, IncrSeq: m.IncrSeq}
	if m.Base != nil {
		b := *m.Base
		c.Base = &b
	}
	c.History = append([]FileInfo(nil), m.History...)
	c.Incr = append([]FileInfo(nil), m.Incr...)
	return c
}

// NewBase names the next base file (prefix.<seq>.base.aof, or .rdb) and
// records it as the base; the previous base becomes history (Redis's
// getNewBaseFileNameAndMarkPreAsHistory).
func (m *Manifest) NewBase(prefix string, rdb bool) string {
	if m.Base != nil {
		old := *m.Base
		old.Type = TypeHistory
		m.History = append([]FileInfo{old}, m.History...)
	}
	m.BaseSeq++
	suffix := aofSuffix
	if rdb {
		suffix = rdbSuffix
	}
	name := prefix + "." + strconv.FormatInt(m.BaseSeq, 10) + baseSuffix + suffix
	m.Base = &FileInfo{Name: name, Seq: m.BaseSeq, Type: TypeBase}
	return name
}

// NewIncr names the next incremental file (prefix.<seq>.incr.aof) and
// appends it to the list (Redis's getNewIncrAofName).
func (m *Manifest) NewIncr(prefix string) string {
	m.IncrSeq++
	name := prefix + "." + strconv.FormatInt(m.IncrSeq, 10) + incrSuffix + aofSuffix
	m.Incr = append(m.Incr, FileInfo{Name: name, Seq: m.IncrSeq, Type: TypeIncr})
	return name
}

// IncrBefore turns every incremental file before the one named keep into
// history (all of them when keep is ""), as Redis's
// markRewrittenIncrAofAsHistory does after a rewrite.
func (m *Manifest) IncrBefore(keep string) {
	var kept []FileInfo
	for _, fi := range m.Incr {
		if fi.Name == keep {
			kept = append(kept, fi)
			continue
		}
		fi.Type = TypeHistory
		m.History = append([]FileInfo{fi}, m.History...)
	}
	m.Incr = kept
}

// Files returns the base (if any) and the incremental files, in load order.
func (m *Manifest) Files() []FileInfo {
	var out []FileInfo
	if m.Base != nil {
		out = append(out, *m.Base)
	}
	return append(out, m.Incr...)
}

// LoadManifest reads the manifest of directory dir for appendfilename
// prefix. It returns nil, nil when the directory or the manifest does not
// exist (a fresh start, or an old single-file AOF).
func LoadManifest(dir, prefix string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestName(prefix)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("Fatal error: can't open the AOF manifest file %s for reading: %w", ManifestName(prefix), err)
	}
	return ParseManifest(data)
}

// WriteManifest replaces the manifest of dir atomically: it writes a
// temporary file, fsyncs it, renames it over the manifest and fsyncs the
// directory (Redis's writeAofManifestFile).
func WriteManifest(dir, prefix string, m *Manifest) error {
	name := ManifestName(prefix)
	tmp := filepath.Join(dir, tempPrefix+name)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("Can't open the AOF manifest file %s: %w", tempPrefix+name, err)
	}
	if _, err := f.Write(m.Encode()); err != nil {
		f.Close()
		return fmt.Errorf("Error trying to write the temporary AOF manifest file %s: %w", tempPrefix+name, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("Fail to fsync the temp AOF file %s: %w", tempPrefix+name, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("Error trying to rename the temporary AOF manifest file %s into %s: %w", tempPrefix+name, name, err)
	}
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("Fail to fsync AOF directory %s: %w", dir, err)
	}
	return nil
}

// SyncDir fsyncs directory dir, making renames and new files in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
