// Command gendocs regenerates the parts of README.md that come from the
// code: the supported-command list (from the command table) and the list of
// configuration parameters that are stored and reported but have no effect.
//
//	go run ./cmd/gendocs            rewrite README.md in place
//	go run ./cmd/gendocs -check     exit 1 if README.md is out of date
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/miniwatchd/miniwatchd/internal/readme"
)

func main() {
	check := flag.Bool("check", false, "report whether README.md is up to date instead of writing it")
	path := flag.String("readme", "README.md", "path of the README")
	flag.Parse()
	old, err := os.ReadFile(*path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	updated, err := readme.Update(old)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *check {
		if !bytes.Equal(old, updated) {
			fmt.Fprintln(os.Stderr, "README.md is out of date: run go run ./cmd/gendocs")
			os.Exit(1)
		}
		return
	}
	if err := os.WriteFile(*path, updated, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
