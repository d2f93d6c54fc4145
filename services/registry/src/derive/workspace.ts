import { packageDir } from "../names";
import type { Deployable, ServiceEntry } from "../services";

// The workspace files that list every service: the root tsconfig's build references, the all-in-one's
// references and dependencies (it loads every service package by name), and each package's declared
// deployables, which the image's entrypoint reads (deploy/entrypoint.js).

/** Packages every build has, around the registered services: libraries first, then their users. */
const LIBRARIES = ["proto", "services/platform", "services/registry", "services/simulators"];
const APPLICATIONS = ["services/edge", "services/all-in-one", "services/cli"];

export const renderRootTsconfig = (services: readonly ServiceEntry[]): string => {
  const paths = [...LIBRARIES, ...services.map((s) => packageDir(s.module)), ...APPLICATIONS];
  return `{
  "files": [],
  "references": [
${paths.map((p) => `    { "path": "${p}" }`).join(",\n")}
  ]
}
`;
};

export const renderAllInOneTsconfig = (services: readonly ServiceEntry[]): string => {
  const refs = ["../platform", "../../proto", "../registry", "../simulators", ...services.map((s) => `../${packageDir(s.module).slice("services/".length)}`), "../edge"];
  return `{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "rootDir": "src", "outDir": "dist" },
  "include": ["src/**/*.ts"],
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

