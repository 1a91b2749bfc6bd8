package loci

import "context"

type workspaceKey struct{}

// WithWorkspace returns a context whose operations act in workspace ws.
func WithWorkspace(ctx context.Context, ws string) context.Context {
	return context.WithValue(ctx, workspaceKey{}, ws)
}

// WorkspaceFrom returns the context's workspace, DefaultWorkspace if none.
func WorkspaceFrom(ctx context.Context) string {
	if ws, ok := ctx.Value(workspaceKey{}).(string); ok && ws != "" {
		return ws
	}
	return DefaultWorkspace
}
