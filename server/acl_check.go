package server

import "github.com/miniwatchd/miniwatchd/protocol"

// aclCheckLocked is processCommand's ACL step (ACLCheckAllPerm followed by
// addACLLogEntry and the NOPERM rejection texts of Redis 7.0.15). It runs
// only for users without full access: the default user with every
// permission costs the dispatcher one flag test.
func (s *Server) aclCheckLocked(c *client, u *aclUser, cmd *command, args [][]byte) protocol.Error {
	res, pos := u.checkCmd(cmd, args)
	if res == aclOK {
		return ""
	}
	ctx := "toplevel"
	if c.multi.Active() {
		ctx = "multi"
	}
	s.aclLogDenialLocked(c, u, res, ctx, cmd, args, pos)
	switch res {
	case aclDeniedCmd:
		return protocol.Error("NOPERM this user has no permissions to run the '" + cmd.name + "' command")
	case aclDeniedKey:
		return "NOPERM this user has no permissions to access one of the keys used as arguments"
	default:
		return "NOPERM this user has no permissions to access one of the channels used as arguments"
	}
}

// aclExecCheckLocked is EXEC's check of each queued command (execCommand):
// the user's rules may have changed since the command was queued.
func (s *Server) aclExecCheckLocked(c *client, u *aclUser, cmd *command, args [][]byte) protocol.Error {
	res, pos := u.checkCmd(cmd, args)
	if res == aclOK {
		return ""
	}
	s.aclLogDenialLocked(c, u, res, "multi", cmd, args, pos)
	reason := "no permission to execute the command or subcommand"
	switch res {
	case aclDeniedKey:
		reason = "no permission to touch the specified keys"
	case aclDeniedChannel:
		reason = "no permission to access one of the channels used as arguments"
	}
	return protocol.Error("NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: " + reason)
}

// aclLogDenialLocked logs a denial: the object is the command's full
// name, or the denied key or channel.
func (s *Server) aclLogDenialLocked(c *client, u *aclUser, res int, ctx string, cmd *command, args [][]byte, pos int) {
	obj := cmd.name
	if res != aclDeniedCmd {
		obj = string(args[pos])
	}
	s.aclLogLocked(c, res, ctx, obj, u.name)
}

// aclScriptCheckLocked is scriptVerifyACL: the ACL check of a command a
// script calls, run as the script caller's user, with Redis's texts.
func (s *Server) aclScriptCheckLocked(caller *client, u *aclUser, cmd *command, args [][]byte) string {
	res, pos := u.checkCmd(cmd, args)
	if res == aclOK {
		return ""
	}
	s.aclLogDenialLocked(caller, u, res, "lua", cmd, args, pos)
	switch res {
	case aclDeniedCmd:
		return "The user executing the script can't run this command or subcommand"
	case aclDeniedKey:
		return "The user executing the script can't access at least one of the keys mentioned in the command arguments"
	default:
		return "The user executing the script can't publish to the channel mentioned in the command"
	}
}
