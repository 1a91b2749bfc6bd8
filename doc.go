// Package loci is the domain of loci, long-term memory for AI agents: the
// memory kinds, scopes, the one record shape, filters, the error type and
// the interfaces (Store, Embedder, Clock) that the adapters implement.
//
// It imports only the standard library. The rules live in rules/, the
// backends in sqlite/ and postgres/, the transports in httpapi/ and
// mcpserver/; only cmd/loci wires them together.
package loci
