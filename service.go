package loci

import "context"

// Service is everything loci does, as the transports see it: one interface
// per kind, embedded here. memory.Service implements it on a store.
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

	// Ping reports whether storage answers reads (readiness); ESTORAGEFULL
	// when it does but writes fail for a full disk (loci.Store's Ping).
	Ping(ctx context.Context) error
}
