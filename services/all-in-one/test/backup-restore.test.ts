import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { backupDataDir, CALL_KEY_FILES, restoreDataDir, silentLogger } from "@earshot/platform";
import { makeTempDir } from "../../platform/src/testing/tmp";
import { startAllInOne } from "../src/all-in-one";
import { loadAllInOneConfig } from "../src/config";

// An online backup of a running Earshot, taken while projects are being created, restores into an empty
// data directory on which Earshot starts and serves what the backup holds (with call keys of its own).

const configFor = (dir: string) => loadAllInOneConfig({ EARSHOT_DATA_DIR: dir, PORT: "0", LOG_LEVEL: "silent", EARSHOT_SIMULATORS: "off" });

const createProject = async (url: string, key: string, name: string): Promise<string> => {
  const res = await fetch(`${url}/api/v1/projects`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name }),
  });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { id: string } }).data.id;
};

const renameProject = async (url: string, key: string, id: string, name: string): Promise<void> => {
  const res = await fetch(`${url}/api/v1/projects/${id}`, {
    method: "PATCH",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name }),
  });
  if (res.status !== 200) throw new Error(`rename ${id}: ${res.status} ${await res.text()}`);
};

const projectNames = async (url: string, key: string): Promise<string[]> => {
  const res = await fetch(`${url}/api/v1/projects?limit=100`, { headers: { Authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ name: string }> }).data.map((p) => p.name);
};

describe("backup and restore", () => {
  it("restores a backup taken during writes to a working instance", async () => {
    const tmp = await makeTempDir();
    const live = join(tmp.dir, "live");
    const restored = join(tmp.dir, "restored");
    const archive = join(tmp.dir, "earshot-backup.tar.gz");
    try {
      const first = await startAllInOne(configFor(live), silentLogger());
      const { apiKey } = JSON.parse(await readFile(join(live, "bootstrap.json"), "utf8")) as { apiKey: string };
      const created: string[] = [];
      for (let i = 0; i < 3; i += 1) created.push(await createProject(first.url, apiKey, `before ${i}`));
      const renamed = await createProject(first.url, apiKey, "renamed 0");
      // Writes keep going while the backup runs.
      let writing = true;
      const writer = (async () => {
        for (let i = 1; writing; i += 1) await renameProject(first.url, apiKey, renamed, `renamed ${i}`);
      })();
      const result = await backupDataDir(live, archive).finally(() => (writing = false));
      await writer.finally(() => first.stop());
      expect(result.stores).toEqual(expect.arrayContaining(["account", "project", "mention"]));

      await expect(restoreDataDir(archive, live)).rejects.toThrow(/not empty/);
      await restoreDataDir(archive, restored);
      // The call keys stay out of the archive (they seal nothing): the restored instance makes its own.
      for (const file of CALL_KEY_FILES) expect(existsSync(join(restored, file))).toBe(false);
      const second = await startAllInOne(configFor(restored), silentLogger());
      try {
        expect(second.callKeys.operatorKey).not.toBe(first.callKeys.operatorKey);
        expect(second.callKeys.callerSigningKey).not.toBe(first.callKeys.callerSigningKey);
        // The restored instance knows the owner's key (the account store) and holds every project made before the backup.
        const names = await projectNames(second.url, apiKey);
        expect(names).toEqual(expect.arrayContaining(["before 0", "before 1", "before 2"]));
        expect(names.filter((n) => n.startsWith("renamed "))).toHaveLength(1);
        // And it takes writes.
        await createProject(second.url, apiKey, "after restore");
        expect(await projectNames(second.url, apiKey)).toContain("after restore");
      } finally {
        await second.stop();
      }
    } finally {
      await tmp.cleanup();
    }
  }, 120_000);
});
