import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SERVICES } from "../services";

// Services depend on contracts, not on each other: a service package's dependencies among the workspace's
// packages are the platform, the protobuf code and the contract layer; its dev dependencies may add the
// simulators (tests only). The edge, the all-in-one and the CLI compose services and may depend on them.
// (The lint rule in eslint.config.mjs refuses the imports themselves.)

const root = resolve(__dirname, "..", "..", "..", "..");
const RUNTIME = ["@earshot/contracts", "@earshot/platform", "@earshot/proto"];
const DEV = ["@earshot/simulators"];

const ours = (deps: Record<string, string> | undefined): string[] => Object.keys(deps ?? {}).filter((d) => d.startsWith("@earshot/"));

describe("service packages", () => {
  const packages = [...new Set(SERVICES.map((s) => s.module))];

  it.each(packages)("%s depends on the platform, the protobuf code and the contracts only", (module) => {
    const pkg = JSON.parse(readFileSync(join(root, "services", module.slice("@earshot/".length), "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    expect(ours(pkg.dependencies).filter((d) => !RUNTIME.includes(d))).toEqual([]);
    expect(ours(pkg.devDependencies).filter((d) => !DEV.includes(d))).toEqual([]);
  });
});
