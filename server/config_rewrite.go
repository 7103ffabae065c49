package server

import (
	"github.com/miniwatchd/miniwatchd/config"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// CONFIG REWRITE (Redis 7.0 config.c rewriteConfig): the command and the
// server's part of it (the file the server started with, the users);
// config.Rewrite writes the file.

var configRewriteCommands = []commandDef{{"config|rewrite", cmdConfigRewrite}}

// SetConfigFile records the config file the server was started with
// (CONFIG REWRITE rewrites it; INFO reports it as config_file).
func (s *Server) SetConfigFile(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if path != "" {
		path = config.AbsPath(path)
	}
	s.configFile = path
}

func cmdConfigRewrite(c *client, args [][]byte) {
	s := c.srv
	if s.configFile == "" {
		c.fail(protocol.Error("ERR The server is running without a config file"))
		return
	}
	if err := s.rewriteConfigLocked(s.configFile); err != nil {
		msg := protocol.Strerror(err)
		s.log.Warn("CONFIG REWRITE failed: " + msg)
		c.fail(protocol.Error("ERR Rewriting config file: " + msg))
		return
	}
	s.log.Info("CONFIG REWRITE executed with success.")
	c.w.OK()
}

// rewriteConfigLocked rewrites the config file at path.
func (s *Server) rewriteConfigLocked(path string) error {
	return s.rewriteConfigForceLocked(path, false)
}

// rewriteConfigForceLocked is rewriteConfig; with force every parameter
// gets a line, default or not (DEBUG CONFIG-REWRITE-FORCE-ALL).
func (s *Server) rewriteConfigForceLocked(path string, force bool) error {
	return config.Rewrite(&s.cfg, path, force, s.aclConfigUserLinesLocked())
}
