// Runs a TypeScript file in a child process, compiling on require with SWC (as jest does), so crash tests
// can kill a real process that runs the real sources. Usage: node ts-child.js <file.ts> [args...]
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { transformSync } = require("@swc/core");

require.extensions[".ts"] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, "utf8"), {
    filename,
    jsc: { target: "es2022", parser: { syntax: "typescript" } },
    module: { type: "commonjs" },
  });
  module._compile(code, filename);
};

// Workspace packages' entry points resolve to their TypeScript sources, as under jest, so no build is needed.
const Module = require("node:module");
const { workspaceEntryPoints } = require("../src/testing/workspace-sources");
const repo = path.resolve(__dirname, "../../..");
const sources = new Map(workspaceEntryPoints(repo).map((e) => [e.specifier, path.join(repo, e.source)]));
const originalResolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return sources.get(request) ?? originalResolve.call(this, request, ...rest);
};

const target = process.argv[2];
process.argv.splice(1, 2, path.resolve(target));
require(path.resolve(target));
