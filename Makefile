GO ?= go

.PHONY: test build vet fmt bench serve

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
