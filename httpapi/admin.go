package httpapi

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/loci-memory/loci"
	"github.com/loci-memory/loci/internal/apidoc"
)

var _ = addRoutes(adminRoutes)

// adminRoutes are the operations endpoints: keys, the audit log, export
// and import (admin, denied to bound keys), metrics (not audited).
func adminRoutes() []endpoint {
	return []endpoint{
		{pattern: "POST /v1/keys", handler: (*Server).handleCreateKey,
			op: loci.OpKeyCreate,
			doc: &apidoc.Op{ID: "createKey", Tag: "admin",
				Desc: "The secret is answered once, as `api_key`. The first key turns authentication on.",
				Body: apidoc.Closed([]string{"role"}, apidoc.Obj{
					"role": apidoc.Ref("Role"), "agent_id": apidoc.Str("Bind the key to one agent."), "name": apidoc.Str("A label for people."),
				}),
				OK: apidoc.Created("Created.", apidoc.Success(apidoc.Object([]string{"id", "api_key", "role", "workspace", "created_at"}, apidoc.Obj{
					"id": apidoc.Str(""), "api_key": apidoc.Str("The secret; not shown again."), "role": apidoc.Ref("Role"),
					"agent_id": apidoc.Str(""), "name": apidoc.Str(""), "workspace": apidoc.Str(""), "created_at": apidoc.Timestamp(""),
				})))}},
		{pattern: "GET /v1/keys", handler: (*Server).handleListKeys,
			op: loci.OpKeyList,
			doc: &apidoc.Op{ID: "listKeys", Tag: "admin",
				OK: apidoc.Okay("The keys.", apidoc.Success(apidoc.Object([]string{"count", "keys"}, apidoc.Obj{
					"count": apidoc.Integer(""), "keys": apidoc.Nullable(apidoc.Array(apidoc.Ref("APIKey"), "Never the secrets.")),
				})))}},
		{pattern: "DELETE /v1/keys/{id}", handler: (*Server).handleRevokeKey,
			op: loci.OpKeyRevoke,
			doc: &apidoc.Op{ID: "revokeKey", Tag: "admin",
				OK: apidoc.Okay("Revoked.", apidoc.PlainSuccess), Errs: []int{notFound}}},
		{pattern: "GET /v1/audit", handler: (*Server).handleAudit,
			op: loci.OpAuditRead,
			doc: &apidoc.Op{ID: "audit", Tag: "admin",
				Desc: "Newest first.",
				Query: []apidoc.Obj{
					apidoc.QueryString("agent_id", ""), apidoc.QueryString("user_id", ""), apidoc.QueryString("key_id", ""), apidoc.QueryString("operation", `e.g. "note.recall".`),
					apidoc.Query("since", "Only entries at or after this time.", apidoc.Obj{"type": "string", "format": "date-time"}),
					apidoc.Limit, apidoc.Offset,
				},
				OK: apidoc.Okay("The entries.", apidoc.List("entries", apidoc.Ref("AuditEntry"), "How many entries match."))}},
		{pattern: "GET /v1/export", handler: (*Server).handleExport,
			op: loci.OpExport,
			doc: &apidoc.Op{ID: "export", Tag: "admin",
				Desc:  "One JSON object per line, each with a `type`: `agent`, `user`, `record` (with its versions) or `block_link`. One snapshot of the workspace, whatever is written meanwhile. Lossless: POST /v1/import restores it.",
				Query: []apidoc.Obj{apidoc.QueryString("user_id", "Only this user's records and user row.")},
				OK:    map[int]apidoc.Resp{http.StatusOK: {Desc: "The export.", Schema: apidoc.Obj{"type": "string"}, Media: "application/x-ndjson"}}}},
		{pattern: "POST /v1/import", handler: (*Server).handleImport,
			op: loci.OpImport, stream: true,
			doc: &apidoc.Op{ID: "import", Tag: "admin",
				Desc: "The body is at most 1 GiB by default (loci serve --max-import-bytes; a larger declared Content-Length is 413 " +
					"at once) and must keep arriving (nothing for 30 s fails it). Every line is read and checked, as strictly as the " +
					"API checks a write (the rules that span records included: a task's working values in all, the episodes of a user " +
					"and agent, counting what the workspace holds; and what reads rely on: a session's message_count is its messages', " +
					"each message index once and below the session's next, each message's session in the file, no tag twice), " +
					"before anything is written: a refused line is 400 (or 409: a record already stored with " +
					"other content, an id or key twice) naming its line, and nothing is imported. The lines are then written in " +
					"batches of 25000, each its own transaction: a storage failure in the middle (503, 507) leaves the batches " +
					"before it, and the same import run again completes it, skipping the records already stored with the same " +
					"id, kind, version and updated_at (`skipped`) and keeping agents and users already there.",
				Body: apidoc.Obj{"type": "string"}, BodyMedia: "application/x-ndjson",
				OK: apidoc.Created("Imported.", apidoc.Success(apidoc.Ref("ImportResult"))), Errs: []int{conflict}}},
		{pattern: "GET /metrics", handler: (*Server).handleMetrics,
			op: loci.OpMetrics,
			doc: &apidoc.Op{ID: "metrics", Tag: "operations",
				Desc: "404 when the server runs without metrics.",
				OK:   map[int]apidoc.Resp{http.StatusOK: {Desc: "The Prometheus text exposition.", Schema: apidoc.Obj{"type": "string"}, Media: "text/plain"}},
				Errs: []int{notFound}}},
		{pattern: "POST /v1/maintenance", handler: (*Server).handleMaintain,
			op: loci.OpMaintenance,
			doc: &apidoc.Op{ID: "maintain", Tag: "admin",
				Desc: "An empty body runs every task. `tasks` maps each task run to what it changed.",
				Body: apidoc.Closed(nil, apidoc.Obj{
					"tasks":   apidoc.Array(apidoc.Ref("MaintenanceTask"), "Absent or empty: all."),
					"dry_run": apidoc.Boolean("Report without changing anything."),
				}), BodyOptional: true,
				OK: apidoc.Okay("What each task changed.", apidoc.Success(apidoc.Object([]string{"dry_run", "tasks"}, apidoc.Obj{
					"dry_run": apidoc.Boolean(""), "tasks": apidoc.MapOf(apidoc.Ref("MaintenanceResult"), "Task name to result."),
				})))}},
	}
}

// createKeyRequest is the body of POST /v1/keys.
type createKeyRequest struct {
	Role    string `json:"role"`
	AgentID string `json:"agent_id"`
	Name    string `json:"name"`
}

func (s *Server) handleCreateKey(w http.ResponseWriter, r *http.Request) {
	var req createKeyRequest
	if err := decode(r, &req); err != nil {
		s.Error(w, r, err)
		return
	}
	k, secret, err := s.KeyService.CreateKey(r.Context(), loci.KeySpec{Role: loci.Role(req.Role), AgentID: req.AgentID, Name: req.Name})
	if err != nil {
		s.Error(w, r, err)
		return
	}
	// The secret is answered as "api_key", never "key", so the audit log
	// (which logs top-level ids and keys) cannot pick it up.
	ok(w, http.StatusCreated, map[string]any{
		"id": k.ID, "api_key": secret, "role": k.Role, "agent_id": k.AgentID, "name": k.Name,
		"workspace": k.Workspace, "created_at": k.CreatedAt,
	})
}

func (s *Server) handleListKeys(w http.ResponseWriter, r *http.Request) {
	keys, err := s.KeyService.ListKeys(r.Context(), false)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"count": len(keys), "keys": keys})
}

func (s *Server) handleRevokeKey(w http.ResponseWriter, r *http.Request) {
	if err := s.KeyService.RevokeKey(r.Context(), r.PathValue("id")); err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, nil)
}

func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {
	f := loci.ExportFilter{UserID: r.URL.Query().Get("user_id")}
	// An export may take longer than the server's write timeout, but each
	// write must be taken within streamIdle: a stalled client must not
	// hold the export's read transaction.
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="loci-export.jsonl"`)
	cw := &countingWriter{w: w, rc: http.NewResponseController(w), idle: s.streamIdle}
	_, err := s.ExportService.Export(r.Context(), f, cw)
	if err != nil {
		if cw.n == 0 {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Del("Content-Disposition")
			s.Error(w, r, err)
			return
		}
		// Too late for an error status: log it; the client sees a
		// truncated stream.
		s.logger.Error("export failed mid-stream", "err", err)
	}
}

// countingWriter counts the bytes written through it; with idle set, each
// write must be taken within it.
type countingWriter struct {
	w    io.Writer
	n    int64
	rc   *http.ResponseController
	idle time.Duration
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if c.idle > 0 {
		c.rc.SetWriteDeadline(time.Now().Add(c.idle))
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// importBody reads an import's body with a rolling deadline: each read
// must bring data within idle, so a client that stops sending fails the
// import (and holds nothing meanwhile: nothing is written before the whole
// body has been read and checked). It remembers why reading failed.
type importBody struct {
	r        io.Reader
	rc       *http.ResponseController
	idle     time.Duration
	tooLarge bool
	err      error
}

func (b *importBody) Read(p []byte) (int, error) {
	if b.idle > 0 {
		b.rc.SetReadDeadline(time.Now().Add(b.idle))
	}
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			b.tooLarge = true
		} else if b.err == nil {
			b.err = err
		}
	}
	return n, err
}

func (s *Server) handleImport(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	// refuse answers err and drops what is left of the body unread: the
	// connection closes instead of draining it (which a stalled client
	// would make wait).
	refuse := func(err error) {
		w.Header().Set("Connection", "close")
		rc.SetReadDeadline(time.Now())
		s.Error(w, r, err)
	}
	if r.ContentLength > s.maxImportBytes {
		refuse(loci.Errorf(loci.ETOOLARGE, "import body must be at most %d bytes", s.maxImportBytes))
		return
	}
	body := &importBody{r: r.Body, rc: rc, idle: s.streamIdle}
	res, err := s.ExportService.Import(r.Context(), body)
	switch {
	case body.tooLarge:
		refuse(loci.Errorf(loci.ETOOLARGE, "import body must be at most %d bytes", s.maxImportBytes))
		return
	case body.err != nil:
		s.logger.Warn("import body unreadable", "err", body.err)
		refuse(loci.Errorf(loci.EINVALID, "the import body stopped arriving (nothing for %s, or the connection broke): nothing was imported", s.streamIdle))
		return
	case err != nil:
		refuse(err)
		return
	}
	// However long the import took, the answer has time to be written.
	rc.SetWriteDeadline(time.Now().Add(max(s.streamIdle, 10*time.Second)))
	ok(w, http.StatusCreated, map[string]any{
		"agents": res.Agents, "users": res.Users, "records": res.Records, "versions": res.Versions,
		"block_links": res.BlockLinks, "skipped": res.Skipped,
	})
}

func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if s.metrics == nil {
		s.Error(w, r, loci.Errorf(loci.ENOTFOUND, "metrics are not enabled"))
		return
	}
	s.metrics.ServeHTTP(w, r)
}

// handleMaintain runs maintenance; an empty body runs every task.
func (s *Server) handleMaintain(w http.ResponseWriter, r *http.Request) {
	var req loci.MaintenanceRequest
	if r.ContentLength != 0 {
		if err := decode(r, &req); err != nil {
			s.Error(w, r, err)
			return
		}
	}
	rep, err := s.MaintenanceService.Maintain(r.Context(), req)
	if err != nil {
		s.Error(w, r, err)
		return
	}
	ok(w, http.StatusOK, map[string]any{"dry_run": rep.DryRun, "tasks": rep.Tasks})
}
