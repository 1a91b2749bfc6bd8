GO ?= go

.PHONY: test build vet fmt bench serve fuzz sdk-test sdk-gen frameworks-test frameworks-install-test browser-test

## test: vet, then every test (PostgreSQL suites too when LOCI_TEST_POSTGRES_DSN is set,
## PGlite/pgvector ones when LOCI_TEST_PGLITE_DSN is set; .ci/run sets both), then
## which of those suites were skipped
test: vet
	$(GO) test -count=1 -timeout 30m ./...
	$(if $(LOCI_TEST_POSTGRES_DSN),,@echo "note: the PostgreSQL suites were skipped (LOCI_TEST_POSTGRES_DSN is not set); to run them: LOCI_TEST_POSTGRES_DSN='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' make test")
	$(if $(LOCI_TEST_PGLITE_DSN),,@echo "note: the pgvector suites were skipped (LOCI_TEST_PGLITE_DSN is not set; .ci/run starts PGlite and sets it)")

build:
	$(GO) build -o bin/loci ./cmd/loci

## sdk-test: the Python and TypeScript clients' suites against a real `loci serve`
## (bin/loci): python3 (standard library only) and node with npm, which installs
## the TypeScript tools from sdk/typescript's lockfile
PYTHON ?= python3
sdk-test: build
	cd sdk/python && LOCI_BIN=$(CURDIR)/bin/loci $(PYTHON) -m unittest discover -s tests -t tests
	npm ci --prefix sdk/typescript --no-audit --no-fund --loglevel=error
	cd sdk/typescript && LOCI_BIN=$(CURDIR)/bin/loci npm test --silent

## frameworks-test: the framework adapters (sdk/frameworks, one npm package per framework), each
## driven by the framework's own packages against a real `loci serve` (bin/loci):
## npm installs them from sdk/frameworks's lockfile (after building sdk/typescript, which the
## adapters use); every client's telemetry is off, and nothing outside this machine is
## reached; it prints the time each package's suite takes
FRAMEWORKS = openai-agents ai-sdk langgraph mem0
FRAMEWORKS_ENV = env -u OPENAI_API_KEY -u LANGSMITH_API_KEY -u LANGCHAIN_API_KEY \
	OPENAI_AGENTS_DISABLE_TRACING=1 LANGCHAIN_TRACING_V2=false LANGSMITH_TRACING=false MEM0_TELEMETRY=false \
	LOCI_BIN=$(CURDIR)/bin/loci
frameworks-test: build
	[ -d sdk/typescript/node_modules ] || npm ci --prefix sdk/typescript --no-audit --no-fund --loglevel=error
	npm run build --prefix sdk/typescript --silent
	npm ci --prefix sdk/frameworks --no-audit --no-fund --loglevel=error
	@set -e; for d in $(FRAMEWORKS); do \
		start=$$(date +%s); \
		(cd sdk/frameworks/$$d && $(FRAMEWORKS_ENV) npm test --silent); \
		echo "== adapter $$d: $$(( $$(date +%s) - start )) s"; \
	done

## frameworks-install-test: the README's install steps, from a fresh app: `npm run pack` in
## sdk/frameworks makes the client and each adapter a tarball with its dist/ built; an app of its
## own, in a new folder outside the repository, installs its frameworks from its lockfile
## (sdk/frameworks/apps/pinned: the versions the adapters pin; apps/newest: the newest that run on
## Node 20) and then the tarballs, and its test (apps/app.test.mjs) checks that each adapter
## takes the app's framework (its errors and classes are the app's) and runs the README's
## examples there. npm reaches the registry only; the tests, nothing outside this machine
FRAMEWORK_APPS = pinned newest
frameworks-install-test: build
	[ -d sdk/typescript/node_modules ] || npm ci --prefix sdk/typescript --no-audit --no-fund --loglevel=error
	[ -d sdk/frameworks/node_modules ] || npm ci --prefix sdk/frameworks --no-audit --no-fund --loglevel=error
	rm -rf sdk/frameworks/packs
	npm run pack --prefix sdk/frameworks --silent >/dev/null
	@set -e; for a in $(FRAMEWORK_APPS); do \
		app=$$(mktemp -d); \
		cp sdk/frameworks/apps/$$a/package.json sdk/frameworks/apps/$$a/package-lock.json sdk/frameworks/apps/app.test.mjs $$app/; \
		echo "== app $$a, in $$app"; \
		if (cd $$app && npm ci --no-audit --no-fund --loglevel=error && \
			npm install --no-audit --no-fund --loglevel=error $(CURDIR)/sdk/frameworks/packs/*.tgz && \
			$(FRAMEWORKS_ENV) LOCI_FRAMEWORKS=$(CURDIR)/sdk/frameworks node --test --test-concurrency=1 app.test.mjs); \
		then rm -rf $$app; else rm -rf $$app; exit 1; fi; \
	done

## sdk-gen: regenerate both clients' types after httpapi/openapi.json changes, and the
## Python asyncio client (loci/aio.py) from the blocking one (loci/client.py)
sdk-gen:
	cd sdk/python && $(PYTHON) tools/gen_types.py && $(PYTHON) tools/gen_aio.py
	cd sdk/typescript && npm run gen --silent

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

## export-rounds: EXPORT_ROUNDS rounds (default 20) of exports taken under concurrent
## writers, each imported into an empty database and exported again identically, on
## SQLite and (with LOCI_TEST_POSTGRES_DSN) PostgreSQL; it reports the exports and writes
EXPORT_ROUNDS ?= 20
.PHONY: export-rounds
export-rounds:
	LOCI_EXPORT_ROUNDS=$(EXPORT_ROUNDS) $(GO) test -count=1 -v -run '^TestExportUnderWrites$$' ./rules

## fuzz: run each fuzz target for its number of inputs (about 20 s each here;
## FUZZTIME=30s or FUZZTIME=5000x for every target instead). A count, not a
## duration: with a duration, go1.26's coordinator may fail a target with
## "context deadline exceeded" when its time ends under load, having found
## nothing (golang/go#75804, fixed in go1.27).
FUZZTIME ?=
FUZZ_TARGETS = ./httpapi:FuzzRoutes:30000x ./httpapi:FuzzCheckJSON:90000x ./sqlite:FuzzSearchLexical:20000x ./analysis:FuzzQuery:35000x
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; rest=$${t#*:}; name=$${rest%%:*}; n=$${rest#*:}; \
		if [ -n "$(FUZZTIME)" ]; then n=$(FUZZTIME); fi; \
		echo "== fuzz $$name ($$pkg, $$n)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $$n -fuzzminimizetime 5s $$pkg; \
	done
