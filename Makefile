GO ?= go

.PHONY: test build vet fmt bench serve fuzz browser-test

## test: vet, then every test (PostgreSQL suites too when LOCI_TEST_POSTGRES_DSN is set,
## PGlite/pgvector ones when LOCI_TEST_PGLITE_DSN is set; .ci/run sets both)
test: vet
	$(GO) test -count=1 ./...

build:
	$(GO) build -o bin/loci ./cmd/loci

vet:
	$(GO) vet ./...

fmt:
	gofmt -l -w .

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

serve:
	$(GO) run ./cmd/loci serve

## browser-test: the inspector's browser tests (web/e2e): playwright-core from npm drives
## the system's Chromium (never a downloaded one) against a real loci serve; it prints
## the folder with a screenshot of each view
browser-test: build
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix web/e2e --no-audit --no-fund --loglevel=error
	cd web/e2e && LOCI_BIN=$(CURDIR)/bin/loci node --test --test-concurrency=1 inspector.test.mjs

## fuzz: run each fuzz target for FUZZTIME (seed corpora under testdata/fuzz)
FUZZTIME ?= 20s
FUZZ_TARGETS = ./httpapi:FuzzRoutes ./httpapi:FuzzCheckJSON ./sqlite:FuzzSearchLexical ./analysis:FuzzQuery
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== fuzz $$name ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s $$pkg; \
	done
