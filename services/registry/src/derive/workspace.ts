import { packageDir } from "../names";
import type { Deployable, ServiceEntry } from "../services";

// The workspace files that list every service: the root tsconfig's build references, the all-in-one's
// references and dependencies (it loads every service package by name), and each package's declared
// deployables, which the image's entrypoint reads (deploy/entrypoint.js).

/** Packages every build has, around the registered services: libraries first, then their users. */
const LIBRARIES = ["proto", "services/platform", "services/contracts", "services/registry", "services/simulators"];
const APPLICATIONS = ["services/edge", "services/all-in-one", "services/cli"];

/**
 * Test code in a package's `src`: tests, and the helpers only tests import. Every package's tsconfig
 * excludes it (so `dist` ships none of it) and the tests' own project type-checks it.
 */
export const TEST_SOURCES = ["src/**/*.test.ts", "src/**/test-support.ts", "src/**/*-test-support.ts"];

/** The project that type-checks every package's test code against the packages' builds (no output). */
export const TEST_TSCONFIG = "tsconfig.test.json";

/**
 * The platform's test helpers (`@earshot/platform/testing`): left out of its build like every package's
 * test code, so the tests' type check reads them from their sources.
 */
const PLATFORM_TESTING = "services/platform/src/testing";

const packagePaths = (services: readonly ServiceEntry[]) => [...new Set([...LIBRARIES, ...services.map((s) => packageDir(s.module)), ...APPLICATIONS])];

export const renderRootTsconfig = (services: readonly ServiceEntry[]): string => `{
  "files": [],
  "references": [
${[...packagePaths(services), TEST_TSCONFIG].map((p) => `    { "path": "${p}" }`).join(",\n")}
  ]
}
`;

export const renderTestTsconfig = (services: readonly ServiceEntry[]): string => `{
  "extends": "./tsconfig.base.json",
  "compilerOptions": {
    "rootDir": ".",
    "noEmit": true,
    "tsBuildInfoFile": "node_modules/.cache/earshot-tests.tsbuildinfo",
    "paths": { "@earshot/platform/testing": ["./${PLATFORM_TESTING}/index.ts"] }
  },
  "include": [${[...TEST_SOURCES.map((s) => `"services/*/${s}"`), `"${PLATFORM_TESTING}/**/*.ts"`].join(", ")}],
  "references": [
${packagePaths(services).map((p) => `    { "path": "${p}" }`).join(",\n")}
  ]
}
`;

export const renderAllInOneTsconfig = (services: readonly ServiceEntry[]): string => {
  // A service of several deployables is one package: one reference.
  const refs = [...new Set(["../platform", "../../proto", "../registry", "../simulators", ...services.map((s) => `../${packageDir(s.module).slice("services/".length)}`), "../edge"])];
  return `{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "rootDir": "src", "outDir": "dist" },
  "include": ["src/**/*.ts"],
  "exclude": [${TEST_SOURCES.map((s) => `"${s}"`).join(", ")}],
  "references": [${refs.map((r) => `{ "path": "${r}" }`).join(", ")}]
}
`;
};

type PackageJson = Record<string, unknown> & { dependencies?: Record<string, string>; earshot?: Record<string, unknown> };

const sorted = (deps: Record<string, string>) => Object.fromEntries(Object.entries(deps).sort(([a], [b]) => a.localeCompare(b)));

/** The all-in-one's package.json with a dependency on every registered service package. */
export const withServiceDependencies = (pkg: PackageJson, services: readonly ServiceEntry[], version: string): PackageJson => {
  const deps = { ...pkg.dependencies };
  for (const s of services) deps[s.module] = version;
  return { ...pkg, dependencies: sorted(deps) };
};

/** A package's package.json declaring exactly the registry's deployables of that package. */
export const withDeployables = (pkg: PackageJson, module: string, ds: readonly Deployable[]): PackageJson => ({
  ...pkg,
  earshot: {
    ...pkg.earshot,
    deployables: ds.filter((d) => d.module === module).map((d) => ({ name: d.name, entry: d.entry, protocol: d.protocol, port: d.port })),
  },
});

export const packageJsonText = (pkg: PackageJson): string => `${JSON.stringify(pkg, null, 2)}\n`;

