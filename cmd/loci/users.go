package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"time"

	"github.com/loci-memory/loci"
)

// The verbs for what is held about users and tasks, on the local
// database: users (list, memories, forget, delete: everything about a
// user from a shell), preferences, sessions, episodes and working memory.
// Each prints one line per item, or the API's JSON with --json.

// localVerb is what every verb here shares: its sub-command, its flag set
// (named "VERB SUB" for help), --json and --db.
type localVerb struct {
	verb, sub string
	fs        *flag.FlagSet
	asJSON    *bool
	cfg       Config
}

func newLocalVerb(verb string, args []string) (*localVerb, []string, error) {
	sub, rest, err := splitSubcommand(verb, args)
	if err != nil {
		return nil, nil, err
	}
	v := &localVerb{verb: verb, sub: sub, fs: flag.NewFlagSet(verb+" "+sub, flag.ContinueOnError), cfg: loadConfig()}
	v.asJSON = v.fs.Bool("json", false, "print the API's JSON")
	v.cfg.dbFlag(v.fs)
	return v, rest, nil
}

// parse parses the flags and checks the number of positional arguments.
func (v *localVerb) parse(args []string, want int) ([]string, error) {
	pos, err := parseFlags(v.fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != want {
		return nil, subUsage(v.verb, v.sub)
	}
	return pos, nil
}

// require is bad usage when a required flag is empty.
func require(name, v string) error {
	if v == "" {
		return usagef("--%s is required", name)
	}
	return nil
}

// value reads a VALUE argument: JSON with --value-json, else a string.
func value(s string, isJSON bool) (json.RawMessage, error) {
	if isJSON {
		if !json.Valid([]byte(s)) {
			return nil, usagef("--value-json: %q is not JSON", s)
		}
		return json.RawMessage(s), nil
	}
	b, _ := json.Marshal(s)
	return b, nil
}

func runUsers(ctx context.Context, e *env, args []string) error {
	v, args, err := newLocalVerb("users", args)
	if err != nil {
		return err
	}
	var match, query *string
	var limit, offset *int
	var dry *bool
	var ids tagList
	switch v.sub {
	case "list":
		match = v.fs.String("match", "", "only users whose id holds this (ignoring case)")
		limit = v.fs.Int("limit", loci.DefaultListLimit, "at most this many")
		offset = v.fs.Int("offset", 0, "skip this many")
	case "forget":
		query = v.fs.String("query", "", "forget what holds these words")
		v.fs.Var(&ids, "id", "forget this record (repeatable)")
		dry = v.fs.Bool("dry-run", false, "say what would be forgotten, forget nothing")
	}
	want := map[string]int{"list": 0, "memories": 1, "forget": 1, "delete": 1}[v.sub]
	pos, err := v.parse(args, want)
	if err != nil {
		return err
	}
	if v.sub == "forget" && *query == "" && len(ids) == 0 {
		return usagef("users forget needs --query or --id")
	}
	svc, done, err := openLocal(ctx, v.cfg)
	if err != nil {
		return err
	}
	defer done()
	switch v.sub {
	case "list":
		return listUsers(ctx, e, svc, *v.asJSON, loci.UserFilter{Match: *match, Limit: *limit, Offset: *offset})
	case "memories":
		mems, err := svc.UserMemories(ctx, pos[0], loci.UserMemoryQuery{})
		if err != nil {
			return err
		}
		return printMemories(e, v, mems, "memories")
	case "forget":
		return forgetUserMemories(ctx, e, svc, *v.asJSON, pos[0], loci.ForgetRequest{Query: *query, IDs: ids, DryRun: *dry})
	case "delete":
		n, err := svc.DeleteUser(ctx, pos[0])
		if err != nil {
			return err
		}
		if *v.asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "deleted": n})
		}
		fmt.Fprintf(e.stdout, "Deleted user %s: %d records\n", pos[0], n)
	}
	return nil
}

// listUsers prints the users f selects, one a line.
func listUsers(ctx context.Context, e *env, svc *service, asJSON bool, f loci.UserFilter) error {
	users, total, err := svc.ListUsers(ctx, f)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "count": total, "users": users})
	}
	for _, u := range users {
		fmt.Fprintf(e.stdout, "%s\t%d memories\tupdated %s\n", u.UserID, u.Memories, u.UpdatedAt.Format(time.RFC3339))
	}
	if len(users) == 0 {
		fmt.Fprintln(e.stderr, "No users.")
	}
	return nil
}

// forgetUserMemories forgets what req names of user userID (or, dry, says
// what it would) and prints it.
func forgetUserMemories(ctx context.Context, e *env, svc *service, asJSON bool, userID string, req loci.ForgetRequest) error {
	mems, err := svc.ForgetUserMemories(ctx, userID, req)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "dry_run": req.DryRun, "count": len(mems), "deleted": mems})
	}
	verb := "Forgot"
	if req.DryRun {
		verb = "Would forget"
	}
	for _, m := range mems {
		fmt.Fprintf(e.stdout, "%s\t%s\t%s\t%s\n", verb, m.Kind, m.ID, oneLine(m.Content))
	}
	if len(mems) == 0 {
		fmt.Fprintln(e.stderr, "Nothing matched.")
	}
	return nil
}

// printMemories prints memories of any kind, one a line.
func printMemories(e *env, v *localVerb, mems []*loci.UserMemory, field string) error {
	if *v.asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "count": len(mems), field: mems})
	}
	for _, m := range mems {
		fmt.Fprintf(e.stdout, "%s\t%s\t%s\n", m.Kind, m.ID, oneLine(m.Content))
	}
	if len(mems) == 0 {
		fmt.Fprintln(e.stderr, "No memories.")
	}
	return nil
}

func runPreferences(ctx context.Context, e *env, args []string) error {
	v, args, err := newLocalVerb("preferences", args)
	if err != nil {
		return err
	}
	user := v.fs.String("user", "", "the user (required)")
	var session, source, sctx *string
	var isJSON *bool
	switch v.sub {
	case "list":
		session = v.fs.String("session", "", "also the decisions of this session")
	case "set":
		session = v.fs.String("session", "", "the session of a decision")
		source = v.fs.String("source", "explicit", "explicit, implicit or decision")
		sctx = v.fs.String("context", "", "where it was observed")
		isJSON = v.fs.Bool("value-json", false, "VALUE is JSON (default: a string)")
	}
	want := map[string]int{"list": 0, "set": 2, "delete": 1, "clear": 0}[v.sub]
	pos, err := v.parse(args, want)
	if err != nil {
		return err
	}
	if err := require("user", *user); err != nil {
		return err
	}
	var val json.RawMessage
	if v.sub == "set" {
		if val, err = value(pos[1], *isJSON); err != nil {
			return err
		}
	}
	svc, done, err := openLocal(ctx, v.cfg)
	if err != nil {
		return err
	}
	defer done()
	switch v.sub {
	case "list":
		return listPreferences(ctx, e, svc, *v.asJSON, *user, *session)
	case "set":
		return setPreference(ctx, e, svc, *v.asJSON, loci.PreferenceInput{UserID: *user, Type: pos[0], Value: val,
			Source: *source, SessionID: *session, Context: *sctx})
	case "delete":
		n, err := svc.DeletePreference(ctx, *user, pos[0])
		if err != nil {
			return err
		}
		if *v.asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "deleted": n})
		}
		fmt.Fprintf(e.stdout, "Deleted: %s\n", pos[0])
	case "clear":
		n, err := svc.ClearPreferences(ctx, *user)
		if err != nil {
			return err
		}
		if *v.asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "deleted": n})
		}
		fmt.Fprintf(e.stdout, "Deleted %d preferences of %s\n", n, *user)
	}
	return nil
}

// listPreferences prints the preferences of user userID (and the
// decisions of session sessionID, if given).
func listPreferences(ctx context.Context, e *env, svc *service, asJSON bool, userID, sessionID string) error {
	prefs, err := svc.ListPreferences(ctx, userID, sessionID)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(e.stdout, map[string]any{"success": true, "count": len(prefs), "preferences": prefs})
	}
	for _, p := range prefs {
		fmt.Fprintf(e.stdout, "%s\t%s\t%s\t%d\n", p.Type, oneLine(string(p.Value)), p.Source, p.Confidence)
	}
	if len(prefs) == 0 {
		fmt.Fprintln(e.stderr, "No preferences.")
	}
	return nil
}

// setPreference observes preference in and prints what it stored.
func setPreference(ctx context.Context, e *env, svc *service, asJSON bool, in loci.PreferenceInput) error {
	p, created, err := svc.ObservePreference(ctx, in)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(e.stdout, p)
	}
	action := "Updated"
	if created {
		action = "Stored"
	}
	fmt.Fprintf(e.stdout, "%s %s (confidence %d)\n", action, p.Type, p.Confidence)
	return nil
}

func runSessions(ctx context.Context, e *env, args []string) error {
	v, args, err := newLocalVerb("sessions", args)
	if err != nil {
		return err
	}
	var user *string
	var limit, offset *int
	if v.sub == "list" {
		user = v.fs.String("user", "", "the user (required)")
		limit = v.fs.Int("limit", loci.DefaultListLimit, "at most this many")
		offset = v.fs.Int("offset", 0, "skip this many")
	}
	want := map[string]int{"list": 0, "get": 1, "delete": 1}[v.sub]
	pos, err := v.parse(args, want)
	if err != nil {
		return err
	}
	if v.sub == "list" {
		if err := require("user", *user); err != nil {
			return err
		}
	}
	svc, done, err := openLocal(ctx, v.cfg)
	if err != nil {
		return err
	}
	defer done()
	switch v.sub {
	case "list":
		list, total, err := svc.ListUserSessions(ctx, *user, *limit, *offset)
		if err != nil {
			return err
		}
		if *v.asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "count": total, "sessions": list})
		}
		for _, s := range list {
			fmt.Fprintf(e.stdout, "%s\t%d messages\t%s\t%s\n", s.SessionID, s.MessageCount, s.UpdatedAt.Format(time.RFC3339), oneLine(s.Summary))
		}
		if len(list) == 0 {
			fmt.Fprintln(e.stderr, "No sessions.")
		}
	case "get":
		s, err := svc.GetSession(ctx, pos[0])
		if err != nil {
			return err
		}
		if *v.asJSON {
			return printJSON(e.stdout, s)
		}
		fmt.Fprintf(e.stdout, "%s\tuser %s\t%s\n", s.SessionID, s.UserID, oneLine(s.Summary))
		for _, m := range s.Messages {
			fmt.Fprintf(e.stdout, "%s\t%s\n", m.Role, oneLine(m.Content))
		}
	case "delete":
		existed, err := svc.DeleteSession(ctx, pos[0])
		if err != nil {
			return err
		}
		if *v.asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "deleted": existed})
		}
		if !existed {
			return loci.Errorf(loci.ENOTFOUND, "no session %s", pos[0])
		}
		fmt.Fprintf(e.stdout, "Deleted: %s\n", pos[0])
	}
	return nil
}

func runEpisodes(ctx context.Context, e *env, args []string) error {
	v, args, err := newLocalVerb("episodes", args)
	if err != nil {
		return err
	}
	var user, agent, outcome *string
	var limit, offset *int
	if v.sub == "list" {
		user = v.fs.String("user", "", "the user (required)")
		agent = v.fs.String("agent", "", "the agent (required)")
		outcome = v.fs.String("outcome", "", "only this outcome")
		limit = v.fs.Int("limit", loci.DefaultListLimit, "at most this many")
		offset = v.fs.Int("offset", 0, "skip this many")
	}
	want := map[string]int{"list": 0, "get": 1, "delete": 1}[v.sub]
	pos, err := v.parse(args, want)
	if err != nil {
		return err
	}
	if v.sub == "list" {
		if err := require("user", *user); err != nil {
			return err
		}
		if err := require("agent", *agent); err != nil {
			return err
		}
	}
	svc, done, err := openLocal(ctx, v.cfg)
	if err != nil {
		return err
	}
	defer done()
	switch v.sub {
	case "list":
		eps, total, err := svc.RecentEpisodes(ctx, loci.EpisodeQuery{UserID: *user, AgentID: *agent, Outcome: *outcome, Limit: *limit, Offset: *offset})
		if err != nil {
			return err
		}
		if *v.asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "count": total, "episodes": eps})
		}
		for _, ep := range eps {
			printEpisode(e, ep)
		}
		if len(eps) == 0 {
			fmt.Fprintln(e.stderr, "No episodes.")
		}
	case "get":
		ep, err := svc.GetEpisode(ctx, pos[0])
		if err != nil {
			return err
		}
		if *v.asJSON {
			return printJSON(e.stdout, ep)
		}
		printEpisode(e, ep)
	case "delete":
		if err := svc.DeleteEpisode(ctx, pos[0]); err != nil {
			return err
		}
		if *v.asJSON {
			return printJSON(e.stdout, map[string]any{"success": true})
		}
		fmt.Fprintf(e.stdout, "Deleted: %s\n", pos[0])
	}
	return nil
}

func printEpisode(e *env, ep *loci.Episode) {
	fmt.Fprintf(e.stdout, "%s\t%s\t%s\t%s\t%s\n", ep.ID, ep.CreatedAt.Format(time.RFC3339), ep.Outcome, ep.ActionType, oneLine(ep.ActionDescription))
}

func runWorking(ctx context.Context, e *env, args []string) error {
	v, args, err := newLocalVerb("working", args)
	if err != nil {
		return err
	}
	agent := v.fs.String("agent", "", "the agent (required to set; else a filter)")
	user := v.fs.String("user", "", "the user (optional)")
	var isJSON *bool
	if v.sub == "set" {
		isJSON = v.fs.Bool("value-json", false, "VALUE is JSON (default: a string)")
	}
	want := map[string]int{"list": 1, "get": 2, "set": 3, "clear": 1}[v.sub]
	pos, err := v.parse(args, want)
	if err != nil {
		return err
	}
	var val json.RawMessage
	if v.sub == "set" {
		if err := require("agent", *agent); err != nil {
			return err
		}
		if val, err = value(pos[2], *isJSON); err != nil {
			return err
		}
	}
	svc, done, err := openLocal(ctx, v.cfg)
	if err != nil {
		return err
	}
	defer done()
	f := loci.WorkingFilter{AgentID: *agent, UserID: *user}
	switch v.sub {
	case "list":
		list, err := svc.ListWorking(ctx, pos[0], f)
		if err != nil {
			return err
		}
		if *v.asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "count": len(list), "entries": list})
		}
		for _, w := range list {
			fmt.Fprintf(e.stdout, "%s\t%s\texpires %s\n", w.Key, oneLine(string(w.Value)), w.ExpiresAt.Format(time.RFC3339))
		}
		if len(list) == 0 {
			fmt.Fprintln(e.stderr, "No working memory.")
		}
	case "get":
		w, err := svc.GetWorking(ctx, pos[0], pos[1], f)
		if err != nil {
			return err
		}
		if *v.asJSON {
			return printJSON(e.stdout, w)
		}
		fmt.Fprintln(e.stdout, string(w.Value))
	case "set":
		w, created, err := svc.SetWorking(ctx, loci.WorkingInput{TaskID: pos[0], AgentID: *agent, UserID: *user, Key: pos[1], Value: val})
		if err != nil {
			return err
		}
		if *v.asJSON {
			return printJSON(e.stdout, w)
		}
		action := "Updated"
		if created {
			action = "Stored"
		}
		fmt.Fprintf(e.stdout, "%s %s (expires %s)\n", action, w.Key, w.ExpiresAt.Format(time.RFC3339))
	case "clear":
		n, err := svc.ClearWorking(ctx, pos[0], f)
		if err != nil {
			return err
		}
		if *v.asJSON {
			return printJSON(e.stdout, map[string]any{"success": true, "deleted": n})
		}
		fmt.Fprintf(e.stdout, "Cleared %d entries of task %s\n", n, pos[0])
	}
	return nil
}
