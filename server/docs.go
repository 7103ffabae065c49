package server

import "sort"

// CommandDoc describes one implemented command for generated documentation.
type CommandDoc struct {
	Name    string // full name: "get", "client|setinfo"
	Group   string // Redis's command group ("string", "generic", ...)
	Summary string
	Write   bool
}

// Commands lists every command and subcommand the server implements, from
// the command table, sorted by name.
func Commands() ([]CommandDoc, error) {
	t, err := buildTable(commandFamilies)
	if err != nil {
		return nil, err
	}
	var out []CommandDoc
	for _, cmd := range t.all() {
		if cmd.proc == nil {
			continue // a container: its subcommands are listed
		}
		out = append(out, CommandDoc{Name: cmd.name, Group: cmd.meta.Group(), Summary: cmd.meta.Summary(), Write: cmd.has(flagWrite)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ParamDoc describes one configuration parameter for generated documentation.
type ParamDoc struct {
	Name, Alias, Default string
	HasEffect, Immutable bool
}

// Params lists every configuration parameter, in Redis's table order.
func Params() []ParamDoc {
	r := newParamRegistry(&Server{cfg: DefaultConfig()})
	var out []ParamDoc
	for _, p := range r.names() {
		if p.Hidden {
			continue
		}
		out = append(out, ParamDoc{Name: p.Name, Alias: p.Alias, Default: p.Default, HasEffect: p.HasEffect, Immutable: p.Immutable})
	}
	return out
}
