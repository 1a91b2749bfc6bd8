package rules

import (
	"context"
	"encoding/json"
	"time"

	"github.com/loci-memory/loci"
)

// episodeKind is how the memories API reaches episodes: read and deleted
// by id; recorded, and given feedback, through their own routes (an
// outcome, a confidence, the cap per user and agent, 30 days of life).
type episodeKind struct{ defaultRules }

var _ = registerKind(loci.KindEpisode, episodeKind{})

func (episodeKind) route() string {
	return "POST /v1/episodes (feedback: POST /v1/episodes/{id}/feedback)"
}
func (episodeKind) ttl() bool { return false }

// expiresByDelete: expire deletes a episode record past its expiry as it is.
func (episodeKind) expiresByDelete() bool { return true }

func (episodeKind) add(ctx context.Context, w *memWrite, in *memInput) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.EINVALID, loci.KindEpisode, "added")
}

func (episodeKind) edit(ctx context.Context, w *memWrite, rec *loci.Record, p *memEdit) (*loci.MemoryEvent, error) {
	return nil, ownRoute(loci.ECONFLICT, loci.KindEpisode, "edited")
}

func (episodeKind) remove(ctx context.Context, w *memWrite, rec *loci.Record) error {
	return w.deleteRecord(ctx, rec)
}

func (episodeKind) importLimits() importLimits {
	return importLimits{maxContent: maxImportContentBytes, maxConfidence: 1, expiry: expiryRequired}
}

func (episodeKind) checkImportScope(rec *loci.Record) error {
	return firstError(need(rec, "user_id", rec.UserID), need(rec, "agent_id", rec.AgentID), checkOutcome(rec.Outcome, true))
}

func (episodeKind) checkImportData(field string, rec *loci.Record, data []byte) (any, error) {
	var d episodeData
	if err := decodeImport(field, rec, data, &d); err != nil {
		return nil, err
	}
	if c := d.ConfidenceScore; c != nil && (*c < 0 || *c > 1) {
		return nil, loci.Errorf(loci.EINVALID, "%s: confidence_score must be from 0 to 1", field)
	}
	return &d, nil
}

// episodeGroup names r's user and agent among the groups import counts.
func episodeGroup(r *loci.Record) string { return "episodes\x00" + r.UserID + "\x00" + r.AgentID }

// holdImport counts the episodes r's user and agent hold.
func (episodeKind) holdImport(h *importHold, ir *importRules, r *loci.Record) {
	userID, agentID := r.UserID, r.AgentID
	h.hold(episodeGroup(r), []string{"episode", userID, agentID}, func(ctx context.Context, tx loci.Tx, ws string, now time.Time) (int, error) {
		return tx.CountRecords(ctx, loci.RecordFilter{Workspace: ws, Kinds: []loci.Kind{loci.KindEpisode}, UserID: &userID, AgentID: &agentID})
	})
}

// tallyImport counts a new episode toward its user and agent's cap (one
// already stored is counted among those held).
func (episodeKind) tallyImport(ir *importRules, e *importEntry) error {
	r := e.rec
	if e.present {
		return nil
	}
	ir.counts[episodeGroup(r)]++
	if ir.counts[episodeGroup(r)] > ir.episodeCap {
		return lineError(e.line, loci.Errorf(loci.EINVALID, "user %q and agent %q would have more than %d episodes",
			r.UserID, r.AgentID, ir.episodeCap))
	}
	return nil
}

// confidence01 is an episode's confidence_score, kept on 0..1; an episode
// recorded without one has none.
func (episodeKind) confidence01(r *loci.Record) (float64, bool) {
	var d struct {
		ConfidenceScore *float64 `json:"confidence_score"`
	}
	if json.Unmarshal(r.Data, &d) != nil || d.ConfidenceScore == nil {
		return 0, false
	}
	return *d.ConfidenceScore, true
}
