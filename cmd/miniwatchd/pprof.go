//go:build pprof

package main

import (
	"os"
	"runtime/pprof"
)

// Built only with -tags pprof (benchmark tooling): MINIWATCHD_CPUPROFILE=file
// writes a CPU profile until the process exits through run's return.
func init() {
	path := os.Getenv("MINIWATCHD_CPUPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	pprof.StartCPUProfile(f)
	stopProfile = func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
