package main

import (
	"flag"
	"strings"
)

// splitSubcommand splits "VERB SUB args…" and checks SUB is one of the
// verb's sub-commands: -h on the verb is help (a list of them), none or
// an unknown one is bad usage.
func splitSubcommand(verb string, args []string) (string, []string, error) {
	if len(args) > 0 && isHelp(args[0]) {
		return "", nil, flag.ErrHelp
	}
	var names []string
	for _, sc := range subcommands[verb] {
		names = append(names, sc.name)
		if len(args) > 0 && args[0] == sc.name {
			return sc.name, args[1:], nil
		}
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", nil, usagef("usage: loci %s %s … (loci %s -h describes each)", verb, strings.Join(names, "|"), verb)
	}
	return "", nil, usagef("unknown %s command %q (want %s)", verb, args[0], strings.Join(names, ", "))
}

// subUsage is bad usage of a sub-command: its usage line.
func subUsage(verb, sub string) error {
	sc, _ := findSubcommand(verb + " " + sub)
	return usagef("usage: loci %s %s", verb, sc.usage)
}
