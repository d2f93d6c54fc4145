import { readFileSync } from "node:fs";
import path from "node:path";

// `npm ci` installs exactly the lockfile and stops at any package it lacks, including another platform's
// optional binary (buf, swc, esbuild-style packages ship one package per os/cpu). npm records them all
// when it resolves the tree; this keeps a lockfile written on one machine from losing the others'.

interface LockEntry {
  version?: string;
  integrity?: string;
  link?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const lock = JSON.parse(readFileSync(path.resolve(__dirname, "..", "package-lock.json"), "utf8")) as { lockfileVersion: number; packages: Record<string, LockEntry> };

/** Where Node would find `name` from the package at `from`: its own node_modules, then each parent's. */
const resolveFrom = (from: string, name: string): string | undefined => {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!base) return undefined;
    const up = base.lastIndexOf("/node_modules/");
    // A workspace (services/x) or a top-level package looks in the root node_modules last.
    base = up < 0 ? "" : base.slice(0, up);
  }
};

describe("package-lock.json, for npm ci on any machine", () => {
  it("is a version 3 lockfile", () => {
    expect(lock.lockfileVersion).toBe(3);
  });

  it("holds every optional dependency of every package, whatever platform it is for", () => {
    const missing = Object.entries(lock.packages).flatMap(([at, entry]) =>
      Object.keys(entry.optionalDependencies ?? {})
        .filter((name) => resolveFrom(at, name) === undefined)
        .map((name) => `${at || "(root)"} -> ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it("pins every platform-specific package by version and integrity", () => {
    const platformSpecific = Object.entries(lock.packages).filter(([, e]) => e.os || e.cpu);
    expect(platformSpecific.length).toBeGreaterThan(10);
    expect(platformSpecific.filter(([, e]) => !e.link && !(e.version && e.integrity)).map(([at]) => at)).toEqual([]);
    // Both of the usual developer machines and CI are covered, not only the one that wrote the file.
    for (const os of ["linux", "darwin", "win32"]) expect(platformSpecific.some(([, e]) => e.os?.includes(os))).toBe(true);
  });
});
