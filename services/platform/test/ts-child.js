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

// Workspace packages resolve to their TypeScript sources, as jest's moduleNameMapper does, so no build is needed.
const Module = require("node:module");
const repo = path.resolve(__dirname, "../../..");
const originalResolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === "@earshot/proto") return path.join(repo, "proto/src/index.ts");
  const m = /^@earshot\/([a-z-]+)$/.exec(request);
  if (m) return path.join(repo, "services", m[1], "src/index.ts");
  return originalResolve.call(this, request, ...rest);
};

const target = process.argv[2];
process.argv.splice(1, 2, path.resolve(target));
require(path.resolve(target));
