package server

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/miniwatchd/miniwatchd/config"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// Users from the configuration and the ACL file, as Redis 7.0.15's acl.c
// loads and saves them: "user" directives (checked while the config is
// parsed, created at start: ACLAppendUserForLoading, ACLLoadConfiguredUsers),
// the aclfile (ACLLoadFromFile, ACLSaveToFile, ACL LOAD / ACL SAVE), and
// the rule that a server uses one or the other, never both.
//
// Everything here runs under the engine lock, except aclCheckUserDirective,
// which runs while the configuration is parsed, before the server exists.

// aclCheckUserDirective is ACLAppendUserForLoading for config.CheckUser:
// the rules, selectors merged, are tried on a user that belongs to no
// server. Unknown commands are not errors here (Redis leaves them to the
// start, when modules have loaded). The argument named in an error is
// argv at the index of the failing rule among the merged ones, as Redis
// indexes it (so "user bob on bad" names 'bob').
func aclCheckUserDirective(cfg *config.Config, argv []string) ([]string, string, string) {
	merged, bad, ok := aclMergeSelectorArgs(argv[2:])
	if !ok {
		// Redis sets no errno for an unclosed parenthesis: the text is
		// the one of the last errno set, ENOENT in 7.0.15's config path.
		return nil, argv[bad], aclErrUnknown
	}
	s := &Server{cfg: *cfg}
	u := s.newUnlinkedACLUser("")
	for j, r := range merged {
		if e := u.setLocked(s, r); e != "" && e != aclErrUnknown {
			return nil, argv[j], e
		}
	}
	return merged, "", ""
}

// aclLoadUsersOnStartLocked is ACLLoadUsersAtStartup (a load hook): user
// directives and an aclfile together are refused, then the directives
// are applied ("user default" starts from reset), then the aclfile is
// loaded. Errors are logged as Redis logs them before it exits.
func (s *Server) aclLoadUsersOnStartLocked() error {
	file := s.aclFileName()
	if file != "" && len(s.cfg.Users) > 0 {
		s.log.Warn("Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both.")
		return errors.New("users in the configuration and an ACL file")
	}
	for _, def := range s.cfg.Users {
		name := def[0]
		if aclHasSpaces(name) {
			s.log.Warn("Spaces not allowed in ACL usernames")
			return s.aclCriticalLoadError()
		}
		u := s.acl.users[name]
		if u == nil {
			u = s.newACLUserLocked(name)
		} else {
			u.setLocked(s, "reset") // only "default" can exist already
		}
		for _, r := range def[1:] {
			if e := u.setLocked(s, r); e != "" {
				s.log.Warn(fmt.Sprintf("Error loading ACL rule '%s' for the user named '%s': %s", r, name, e))
				return s.aclCriticalLoadError()
			}
		}
		if !u.on {
			s.log.Info(fmt.Sprintf("The user '%s' is disabled (there is no 'on' modifier in the user description). Make sure this is not a configuration error.", name))
		}
	}
	if file != "" {
		if errs := s.aclLoadFromFileLocked(nil); errs != "" {
			s.log.Warn("Aborting Redis startup because of ACL errors: " + errs)
			return errors.New("ACL errors")
		}
	}
	return nil
}

func (s *Server) aclCriticalLoadError() error {
	s.log.Warn("Critical error while loading ACLs. Exiting.")
	return errors.New("critical error while loading ACLs")
}

// aclFileName is the aclfile parameter as configured ("" for none).
func (s *Server) aclFileName() string { return s.cfg.Params["aclfile"] }

// aclLoadFromFileLocked is ACLLoadFromFile: every line is empty or
// "user <name> rules...", split at single spaces (not sdssplitargs), each
// rule trimmed of tabs and line ends. A line's unknown commands are each
// reported, of its other errors only the first. With any error nothing
// changes and the errors are returned as Redis joins them; otherwise the
// users are replaced, the default user keeping its identity (a file
// without it gets Redis's initial default user), and every client of a
// user that was replaced, except the default one, is closed (current, the
// client running ACL LOAD, after its reply).
func (s *Server) aclLoadFromFileLocked(current *client) string {
	name := s.aclFileName()
	data, err := os.ReadFile(s.cfg.Resolve(name))
	if err != nil {
		return fmt.Sprintf("Error loading ACLs, opening file '%s': %s", name, protocol.Strerror(err))
	}
	var errs strings.Builder
	users := map[string]*aclUser{}
	for i, line := range strings.Split(string(data), "\n") {
		if k := strings.IndexByte(line, 0); k >= 0 {
			line = line[:k] // read with fgets into a C string
		}
		linenum := i + 1
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		argv := strings.Split(line, " ")
		if argv[0] != "user" || len(argv) < 2 {
			fmt.Fprintf(&errs, "%s:%d should start with user keyword followed by the username. ", name, linenum)
			continue
		}
		if aclHasSpaces(argv[1]) {
			fmt.Fprintf(&errs, "'%s:%d: username '%s' contains invalid characters. ", name, linenum, argv[1])
			continue
		}
		if users[argv[1]] != nil {
			fmt.Fprintf(&errs, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], linenum)
			continue
		}
		u := s.newUnlinkedACLUser(argv[1])
		users[argv[1]] = u
		merged, _, ok := aclMergeSelectorArgs(argv[2:])
		if !ok {
			fmt.Fprintf(&errs, "%s:%d: Unmatched parenthesis in selector definition.", name, linenum)
			continue
		}
		syntaxErr := false
		for _, r := range merged {
			r = strings.Trim(r, "\t\r\n")
			e := u.setLocked(s, r)
			switch {
			case e == "":
			case e == aclErrUnknown:
				fmt.Fprintf(&errs, "%s:%d: Error in applying operation '%s': %s. ", name, linenum, r, e)
			case !syntaxErr:
				fmt.Fprintf(&errs, "%s:%d: %s. ", name, linenum, e)
				syntaxErr = true
			}
		}
	}
	if errs.Len() > 0 {
		errs.WriteString("WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
		return errs.String()
	}
	def := s.acl.users["default"]
	nd := users["default"]
	if nd == nil {
		nd = s.newUnlinkedACLUser("default")
		for _, r := range []string{"+@all", "~*", "&*", "on", "nopass"} {
			nd.setLocked(s, r)
		}
	}
	def.copyFrom(nd)
	users["default"] = def
	old := s.acl.users
	s.acl.users = users
	for n, u := range old {
		if n != "default" {
			s.aclKillUserClientsLocked(u, current)
		}
	}
	return ""
}

// aclSaveToFileLocked is ACLSaveToFile: every user as ACL LIST spells
// it, one a line, written to a temporary file renamed over the aclfile.
func (s *Server) aclSaveToFileLocked() bool {
	var b strings.Builder
	for _, u := range s.sortedUsersLocked() {
		b.WriteString("user " + u.name + " " + u.describe(s) + "\n")
	}
	path := s.cfg.Resolve(s.aclFileName())
	tmp := fmt.Sprintf("%s.tmp-%d-%d", path, os.Getpid(), time.Now().UnixMilli())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		s.log.Warn("Opening temp ACL file for ACL SAVE: " + protocol.Strerror(err))
		return false
	}
	_, err = f.WriteString(b.String())
	f.Close()
	if err != nil {
		s.log.Warn("Writing ACL file for ACL SAVE: " + protocol.Strerror(err))
		os.Remove(tmp)
		return false
	}
	if err := os.Rename(tmp, path); err != nil {
		s.log.Warn("Renaming ACL file for ACL SAVE: " + protocol.Strerror(err))
		os.Remove(tmp)
		return false
	}
	return true
}

const errACLNoFile = protocol.Error("ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.")

func cmdACLLoad(c *client, args [][]byte) {
	s := c.srv
	if s.aclFileName() == "" {
		c.fail(errACLNoFile)
		return
	}
	if errs := s.aclLoadFromFileLocked(c); errs != "" {
		c.fail(protocol.Error("ERR " + errs))
		return
	}
	c.w.OK()
}

func cmdACLSave(c *client, args [][]byte) {
	s := c.srv
	if s.aclFileName() == "" {
		c.fail(errACLNoFile)
		return
	}
	if !s.aclSaveToFileLocked() {
		c.fail(protocol.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information"))
		return
	}
	c.w.OK()
}

// aclConfigUserLinesLocked are the "user" lines CONFIG REWRITE writes
// (rewriteConfigUserOption): none with an aclfile, else every user.
func (s *Server) aclConfigUserLinesLocked() []string {
	if s.aclFileName() != "" {
		return nil
	}
	var lines []string
	for _, u := range s.sortedUsersLocked() {
		lines = append(lines, "user "+u.name+" "+u.describe(s))
	}
	return lines
}
