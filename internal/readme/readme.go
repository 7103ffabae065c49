// Package readme renders the generated sections of README.md from the
// server's command table and parameter registry, so the documentation cannot
// drift from the code (a test fails when README.md is stale).
package readme

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/miniwatchd/miniwatchd/server"
)

// Section markers in README.md.
const (
	commandsBegin = "<!-- BEGIN GENERATED COMMANDS -->"
	commandsEnd   = "<!-- END GENERATED COMMANDS -->"
	paramsBegin   = "<!-- BEGIN GENERATED PARAMS -->"
	paramsEnd     = "<!-- END GENERATED PARAMS -->"
)

// Update returns readme with its generated sections rewritten.
func Update(readme []byte) ([]byte, error) {
	cmds, err := server.Commands()
	if err != nil {
		return nil, err
	}
	out, err := replace(readme, commandsBegin, commandsEnd, renderCommands(cmds))
	if err != nil {
		return nil, err
	}
	return replace(out, paramsBegin, paramsEnd, renderParams(server.Params()))
}

func replace(doc []byte, begin, end, body string) ([]byte, error) {
	i := bytes.Index(doc, []byte(begin))
	j := bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		return nil, fmt.Errorf("README.md lacks the markers %s ... %s", begin, end)
	}
	var b bytes.Buffer
	b.Write(doc[:i+len(begin)])
	b.WriteString("\n")
	b.WriteString(body)
	b.Write(doc[j:])
	return b.Bytes(), nil
}

func renderCommands(cmds []server.CommandDoc) string {
	groups := map[string][]string{}
	var order []string
	for _, c := range cmds {
		g := c.Group
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		name := strings.ToUpper(strings.ReplaceAll(c.Name, "|", " "))
		groups[g] = append(groups[g], name)
	}
	sortStrings(order)
	var b strings.Builder
	fmt.Fprintf(&b, "%d commands and subcommands, generated from the command table (`go run ./cmd/gendocs`):\n\n", len(cmds))
	b.WriteString("| group | commands |\n|---|---|\n")
	for _, g := range order {
		fmt.Fprintf(&b, "| %s | %s |\n", g, strings.Join(groups[g], ", "))
	}
	return b.String()
}

func renderParams(ps []server.ParamDoc) string {
	var eff, stored []string
	for _, p := range ps {
		if p.HasEffect {
			eff = append(eff, "`"+p.Name+"`")
		} else {
			stored = append(stored, "`"+p.Name+"`")
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Parameters that change miniwatchd's behaviour (%d): %s.\n\n", len(eff), strings.Join(eff, ", "))
	fmt.Fprintf(&b, "Parameters accepted, validated and reported by CONFIG GET exactly as Redis 7.0.15 does, but with **no effect** in miniwatchd (%d): %s.\n", len(stored), strings.Join(stored, ", "))
	return b.String()
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
