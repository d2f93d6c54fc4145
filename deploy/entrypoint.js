// The image's entrypoint: `node deploy/entrypoint.js <deployable>` starts one service. Deployables are
// declared by each package under services/ in package.json ("earshot": { "deployables": [...] }).
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const root = path.resolve(__dirname, "..");

const listDeployables = () => {
  const out = [{ name: "all-in-one", dir: path.join(root, "services", "all-in-one"), entry: "dist/main.js", protocol: "http", port: 8080 }];
  const servicesDir = path.join(root, "services");
  for (const dir of fs.readdirSync(servicesDir).sort()) {
    const file = path.join(servicesDir, dir, "package.json");
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
    for (const d of (pkg.earshot && pkg.earshot.deployables) || []) out.push({ ...d, dir: path.join(servicesDir, dir) });
  }
  return out;
};

module.exports = { listDeployables };

if (require.main === module) {
  const name = process.argv[2];
  const all = listDeployables();
  const found = all.find((d) => d.name === name);
  if (!found) {
    process.stderr.write(`Usage: entrypoint.js <deployable>\n${name ? `Unknown deployable "${name}". ` : ""}Known: ${all.map((d) => d.name).join(", ")}\n`);
    process.exit(64);
  }
  require(path.join(found.dir, found.entry));
}
