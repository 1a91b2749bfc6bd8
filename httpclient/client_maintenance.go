package httpclient

import (
	"context"
	"net/http"

	"github.com/loci-memory/loci"
)

var _ loci.MaintenanceService = (*Client)(nil)

// Maintain runs maintenance on the server.
func (c *Client) Maintain(ctx context.Context, req loci.MaintenanceRequest) (*loci.MaintenanceReport, error) {
	var rep loci.MaintenanceReport
	if err := c.do(ctx, http.MethodPost, "/v1/maintenance", req, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}
