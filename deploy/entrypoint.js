// The image's entrypoint: `node deploy/entrypoint.js <deployable> [args...]` starts one service. Deployables
// are declared by each package under services/ in package.json ("earshot": { "deployables": [...] }), plus
// `all-in-one`, the embedded local mode (every service in one process).
"use strict";
const fs = require("node:fs");
const Module = require("node:module");
const path = require("node:path");

const root = path.resolve(__dirname, "..");
const servicesDir = path.join(root, "services");

/**
 * Every deployable: `all-in-one` first, then those of services/<dir>/package.json in directory order.
 * Each is { name, entry, protocol, port, dir } with `dir` the package's absolute directory.
 */
const listDeployables = () => {
  const out = [{ name: "all-in-one", entry: "dist/main.js", protocol: "http", port: 8080, dir: path.join(servicesDir, "all-in-one") }];
  const dirs = fs.existsSync(servicesDir) ? fs.readdirSync(servicesDir).sort() : [];
  for (const dir of dirs) {
    const file = path.join(servicesDir, dir, "package.json");
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
    for (const d of (pkg.earshot && pkg.earshot.deployables) || []) {
      if (out.some((o) => o.name === d.name)) continue;
      out.push({ ...d, dir: path.join(servicesDir, dir) });
    }
  }
  return out;
};

module.exports = { listDeployables };

if (require.main === module) {
  const [name, ...rest] = process.argv.slice(2);
  const all = listDeployables();
  const found = all.find((d) => d.name === name);
  if (!found) {
    process.stderr.write(
      `Usage: node deploy/entrypoint.js <deployable>\n${name ? `Unknown deployable "${name}". ` : "No deployable given. "}` +
        `Known: ${all.map((d) => d.name).join(", ")}\n`,
    );
    process.exit(64); // EX_USAGE
  }
  const entry = path.join(found.dir, found.entry);
  if (!fs.existsSync(entry)) {
    process.stderr.write(`${name}: ${path.relative(root, entry)} does not exist; build first (npm run build).\n`);
    process.exit(1);
  }
  // Run the entry as the main module, as `node <entry>` would: an entry guarded by
  // `if (require.main === module)` (services/edge's gateway-main) would do nothing when merely required.
  process.argv = [process.argv[0], entry, ...rest];
  if (typeof Module.runMain === "function") Module.runMain(entry);
  else require(entry);
}
