# fkc playground — see README.md.
#   make run    build the WASM app and serve the playground on http://127.0.0.1:8080
#   make test   install test dependencies when missing (root: apt), then run every test
#   make generate  rewrite every generated file after a change to the contracts,
#               an op, a link or a page (see docs/adding-an-op.md)
GO      ?= go
ADDR    ?= 127.0.0.1:8080
GOROOT  := $(shell $(GO) env GOROOT)
STATIC  := web/static
# Fuzz budgets are counts of executions, not durations: go1.26's fuzz
# coordinator can fail a run with a bare 'context deadline exceeded' when a
# -fuzztime duration expires under CPU load (golang/go#75804, fixed in
# go1.27); a fresh-clone CI run here hit it once. The four take about a
# minute together on a shared 2-core machine (FuzzParse, the slowest, ran
# 1,800 to 5,000 executions a second there; at 250000x it alone took 2 min).
FUZZTIME ?= 60000x

.PHONY: run wasm fkc test deps vet unit fuzz verify bench generate clean

run: wasm
	$(GO) run ./web -addr $(ADDR) -dir $(STATIC)

# The app: Go compiled to WebAssembly, plus the toolchain's wasm_exec.js;
# its gzip and brotli twins (brotli 11: about a minute, skipped when the
# app's bytes did not change); and every route's page drawn at build time
# (web/gen -pages), which the page shows until the app has loaded.
wasm:
	@if [ -f "$(GOROOT)/lib/wasm/wasm_exec.js" ]; then cp "$(GOROOT)/lib/wasm/wasm_exec.js" $(STATIC)/; \
	 else cp "$(GOROOT)/misc/wasm/wasm_exec.js" $(STATIC)/; fi
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="-s -w" -o $(STATIC)/app.wasm ./wasm
	gzip -9 -k -f $(STATIC)/app.wasm
	$(GO) run ./web/compress $(STATIC)/app.wasm
	$(GO) run ./web/gen -pages $(STATIC)/pre

# The native CLI (cgo: links wgpu-native; slow to link, so built once here
# and reused by the tests through FKC_BIN). -buildvcs=auto: fkc version
# names the commit even where GOFLAGS says -buildvcs=false.
fkc:
	$(GO) build -buildvcs=auto -o bin/fkc ./cmd/fkc

deps:
	@bash scripts/setup-test-deps.sh

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm ./kernels/gpu

unit:
	FKC_BIN=$(CURDIR)/bin/fkc $(GO) test -count=1 -timeout 40m ./...
	# the CPU kernels' Go loops, which WASM and machines without AVX2 run
	$(GO) test -count=1 -tags noasm ./kernels/cpu

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s ./contract
	$(GO) test -run '^$$' -fuzz '^FuzzReadNpy$$' -fuzztime 150000x -fuzzminimizetime 5s ./tensor
	$(GO) test -run '^$$' -fuzz '^FuzzNpyHeader$$' -fuzztime 150000x -fuzzminimizetime 5s ./tensor
	$(GO) test -run '^$$' -fuzz '^FuzzRunFlags$$' -fuzztime 40000x -fuzzminimizetime 5s ./cli

verify:
	./bin/fkc verify --backend cpu --cases 10
	@if ./bin/fkc devices >/dev/null 2>&1; then ./bin/fkc verify --backend vulkan --cases 10; \
	 else echo "SKIP fkc verify --backend vulkan: $$(./bin/fkc devices 2>&1 | tail -1)"; fi

test: deps wasm fkc vet unit fuzz verify

bench: fkc
	$(GO) test -run '^$$' -bench . -benchtime 3x ./kernels/cpu
	./bin/fkc bench --backend cpu

# Every regeneration, in dependency order: the compiled contracts (which
# the pages are rendered from), the prerendered catalog and the Judge
# summaries, then the golden files of the contract formatter and of the
# pages. Review the diff: a golden rewritten here is a change to check.
generate:
	$(GO) generate ./contracts
	$(GO) generate ./web
	$(GO) test -count=1 -run '^TestFormatGoldenAndRoundTrip$$' ./contract -update
	$(GO) test -count=1 -run '^TestGolden' ./playground -update

clean:
	rm -rf bin $(STATIC)/app.wasm $(STATIC)/app.wasm.gz $(STATIC)/app.wasm.br $(STATIC)/pre $(STATIC)/wasm_exec.js e2e/screenshots
