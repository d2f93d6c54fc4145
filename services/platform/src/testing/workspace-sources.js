// Where each workspace package's entry points are in its TypeScript sources, so jest (jest.config.js) and
// ts-child.js run the sources of the packages a test or a script imports rather than their compiled
// dist. A package's package.json "exports" (else its "main") is the one declaration of its entry points:
// each `./dist/x.js` there is `src/x.ts`, because every package compiles src/ into dist/.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const readJson = (file) => JSON.parse(fs.readFileSync(file, "utf8"));

/** The workspace package directories named by the root package.json, relative to `root`. */
const workspaceDirs = (root) =>
  readJson(path.join(root, "package.json")).workspaces.flatMap((pattern) => {
    if (!pattern.endsWith("/*")) return [pattern];
    const parent = pattern.slice(0, -2);
    return fs
      .readdirSync(path.join(root, parent))
      .map((name) => `${parent}/${name}`)
      .filter((dir) => fs.existsSync(path.join(root, dir, "package.json")));
  });

const targetOf = (value) => (typeof value === "string" ? value : (value.default ?? value.require ?? value.node));

/** `{ specifier: "@earshot/mention/filters", source: "services/mention/src/filters.ts" }` per entry point. */
const workspaceEntryPoints = (root) =>
  workspaceDirs(root).flatMap((dir) => {
    const pkg = readJson(path.join(root, dir, "package.json"));
    const entries = pkg.exports ?? { ".": pkg.main };
    return Object.entries(entries).map(([subpath, value]) => {
      const target = targetOf(value);
      const m = /^(?:\.\/)?dist\/(.+)\.js$/.exec(target ?? "");
      if (subpath.includes("*") || !m) {
        throw new Error(`${pkg.name}: export "${subpath}" must name one ./dist/<file>.js (compiled from src/<file>.ts)`);
      }
      return { specifier: subpath === "." ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, "")}`, source: `${dir}/src/${m[1]}.ts` };
    });
  });

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** jest's moduleNameMapper: each entry point's exact specifier to its source. */
const moduleNameMapper = (root) =>
  Object.fromEntries(workspaceEntryPoints(root).map((e) => [`^${escapeRegExp(e.specifier)}$`, `<rootDir>/${e.source}`]));

module.exports = { workspaceEntryPoints, moduleNameMapper };
