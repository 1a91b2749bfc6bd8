// Package web is loci's inspector: one HTML page, its script modules (one per
// view, over a shared core) and one stylesheet, embedded in the binary, that
// browse and edit memories through loci's own REST API (docs/api.md, "The
// inspector"). Plain JavaScript modules, no build step, nothing fetched from
// another origin, so it works offline.
//
// The page holds no data: every memory it shows comes from /v1 calls the
// browser makes with the API key the user pastes, so the API's
// authentication, roles and audit log apply to the inspector as to any
// client.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"sort"
	"strings"
	"time"
)

//go:embed static
var static embed.FS

// AssetPrefix is the path under which the page's script and stylesheet
// are served; httpapi.WithInspector routes GET /ui/{asset} here.
const AssetPrefix = "/ui/"

// asset is one embedded file as it is served.
type asset struct {
	body        []byte
	contentType string
	etag        string
}

// assets maps each served path to its file: the page at "/", and every
// script module, the stylesheet and the icon under AssetPrefix. The content types
// are fixed here rather than guessed from the host's MIME tables, so a
// browser that honours nosniff always gets what it expects.
var assets = loadAssets()

func loadAssets() map[string]*asset {
	out := map[string]*asset{"/": load("static/index.html", "text/html; charset=utf-8")}
	entries, err := static.ReadDir("static")
	if err != nil {
		panic("web: embedded files missing: " + err.Error())
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, ".js"):
			out[AssetPrefix+name] = load("static/"+name, "text/javascript; charset=utf-8")
		case strings.HasSuffix(name, ".css"):
			out[AssetPrefix+name] = load("static/"+name, "text/css; charset=utf-8")
		case strings.HasSuffix(name, ".svg"):
			out[AssetPrefix+name] = load("static/"+name, "image/svg+xml")
		}
	}
	return out
}

// Assets returns the paths the handler serves, sorted.
func Assets() []string {
	out := make([]string, 0, len(assets))
	for p := range assets {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func load(name, contentType string) *asset {
	b, err := static.ReadFile(name)
	if err != nil {
		panic("web: embedded file missing: " + name)
	}
	sum := sha256.Sum256(b)
	return &asset{body: b, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
}

// contentSecurityPolicy allows only this origin's script, style and API:
// no inline script, no other origin, no framing. The page never builds
// HTML from strings, and this is the second line of defence should it.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the inspector: the page at "/" and its script modules
// and stylesheet under AssetPrefix (see Assets); any other path is 404. GET and HEAD only (the server's routes are GET ones);
// responses carry an ETag and must be revalidated, so an upgraded binary
// is picked up at once.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := assets[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", a.contentType)
		h.Set("ETag", a.etag)
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
	})
}
