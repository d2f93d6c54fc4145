import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { derivedFiles, HAND_WRITTEN } from "./derived-files";
import { CHART_DIR } from "./chart";
import { K8S_DIR } from "./k8s";

// `npm run sync-services`: writes every file derived from the registry and removes manifests of
// deployables no longer registered.

const root = resolve(__dirname, "../../../..");

const main = async () => {
  const files = await derivedFiles(root);
  const wanted = new Set([...files.map((f) => f.path), ...HAND_WRITTEN]);
  for (const file of files) {
    const target = join(root, file.path);
    const current = await readFile(target, "utf8").catch(() => undefined);
    if (current === file.content) continue;
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.content);
    process.stdout.write(`wrote ${file.path}\n`);
  }
  for (const dir of [K8S_DIR, `${CHART_DIR}/templates`]) {
    for (const name of await readdir(join(root, dir))) {
      const path = `${dir}/${name}`;
      if (!/\.(ya?ml|tpl)$/.test(name) || wanted.has(path)) continue;
      await rm(join(root, path));
      process.stdout.write(`removed ${path}\n`);
    }
  }
};

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
