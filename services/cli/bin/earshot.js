#!/usr/bin/env node
// Installed as `earshot` (npx earshot …). The compiled CLI lives in dist/, built by `make build`.
"use strict";
try {
  require.resolve("../dist/cli.js");
} catch {
  process.stderr.write("The CLI is not built yet: run `make build` (or `make run`) first.\n");
  process.exit(70);
}
require("../dist/cli.js");
