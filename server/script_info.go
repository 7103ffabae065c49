package server

import "strings"

// INFO memory's scripting fields (Redis 7.0 genRedisInfoString). The Lua
// VMs' own memory is not measured in Go: each VM counts as the 32 KiB an
// idle Redis Lua state reports; the script and library sizes are their
// source sizes.

const luaVMBytes = 32768

// infoScriptsMemory appends INFO memory's scripting fields.
func infoScriptsMemory(s *Server, b *strings.Builder) {
	st := s.scriptsLocked()
	lib := s.functionsLocked()
	evalVM := int64(luaVMBytes)
	fnVM := int64(luaVMBytes)
	scripts := st.engine.Memory()
	functions := lib.Memory()
	field(b, "used_memory_lua", evalVM)
	field(b, "used_memory_vm_eval", evalVM)
	field(b, "used_memory_lua_human", bytesHuman(evalVM))
	field(b, "used_memory_scripts_eval", scripts)
	field(b, "number_of_cached_scripts", st.engine.Len())
	field(b, "number_of_functions", lib.NumFunctions())
	field(b, "number_of_libraries", len(lib.Libs()))
	field(b, "used_memory_vm_functions", fnVM)
	field(b, "used_memory_vm_total", evalVM+fnVM)
	field(b, "used_memory_vm_total_human", bytesHuman(evalVM+fnVM))
	field(b, "used_memory_functions", functions)
	field(b, "used_memory_scripts", scripts+functions)
	field(b, "used_memory_scripts_human", bytesHuman(scripts+functions))
}
