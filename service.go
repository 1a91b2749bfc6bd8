package loci

import "context"

// Service is everything loci does: one interface per kind, embedded here.
// rules.Service implements it on a store. A transport splits it: each of
// its route or tool groups depends on the one small interface it uses
// (httpapi.Server and mcpserver hold one field per interface), so a test
// can replace one.
type Service interface {
	NoteService
	AgentService
	BlockService
	PassageService
	SessionService
	WorkingService
	EpisodeService
	FactService
	PreferenceService
	UserMemoryService
	ReviewService
	MaintenanceService
	KeyService
	AuditService
	ExportService
	SearchService
	AgentSearchService
	OverviewService
	MemoryService
	ConversationService
	PingService
	RetrievalService
}

// PingService is readiness: whether storage answers reads.
type PingService interface {
	// Ping reports whether storage answers reads (readiness); ESTORAGEFULL
	// when it does but writes fail for a full disk (loci.Store's Ping).
	Ping(ctx context.Context) error
}
