import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { makeTempDir } from "../../platform/src/testing/tmp";

// Kills a running Earshot (the real all-in-one, in a child process) while creates are in flight, starts it
// again on the same data directory and retries every request with its Idempotency-Key: each key ends as
// exactly one project, whatever moment the kill hit, and no retry is told the key is still in progress.

const CHILD = join(__dirname, "../../platform/test/ts-child.js");
const MAIN = join(__dirname, "../src/main.ts");

interface Running {
  child: ChildProcess;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const start = (dataDir: string): Promise<Running> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, MAIN], {
      env: { ...process.env, EARSHOT_DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "silent", EARSHOT_RATE_LIMIT_PER_MINUTE: "100000" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on("exit", (code, signal) => done({ code, signal })));
    let out = "";
    let err = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /Earshot is running at (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve({ child, url: m[1], exited });
    });
    child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
    void exited.then(({ code, signal }) => reject(new Error(`Earshot exited before it was ready (${code ?? signal}): ${err}`)));
  });

const createProject = (url: string, key: string, name: string) =>
  fetch(`${url}/api/v1/projects`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Idempotency-Key": `crash-create-${name}` },
    body: JSON.stringify({ name }),
  });

describe("idempotent creates across a process crash (embedded default)", () => {
  it("makes one project per Idempotency-Key when the process is killed mid-creates and every key is retried after a restart", async () => {
    const data = await makeTempDir("earshot-crash-");
    let running: Running | undefined;
    try {
      running = await start(data.dir);
      const { apiKey } = JSON.parse(await readFile(join(data.dir, "bootstrap.json"), "utf8")) as { apiKey: string };
      const names = Array.from({ length: 8 }, (_, i) => `Crash ${i}`);
      const doomed = running;
      // Creates of one workspace commit one after another, so when the first answer arrives the rest are
      // queued or half done: that is when the process dies.
      const inFlight = names.map((name) =>
        createProject(doomed.url, apiKey, name).then(
          (res) => {
            doomed.child.kill("SIGKILL");
            return res.status;
          },
          () => "cut" as const,
        ),
      );
      const firstRound = await Promise.all(inFlight);
      expect(await doomed.exited).toMatchObject({ signal: "SIGKILL" });
      // At least one answer got out before the kill; the verdict below does not depend on how many.
      expect(firstRound.filter((s) => s === 201).length).toBeGreaterThan(0);

      running = await start(data.dir);
      const retries = await Promise.all(
        names.map(async (name) => {
          const res = await createProject((running as Running).url, apiKey, name);
          return { name, status: res.status, body: (await res.json()) as { data?: { id: string; name: string }; code?: string } };
        }),
      );
      expect(retries.filter((r) => r.body.code === "idempotency_in_progress")).toEqual([]);
      expect(retries.map((r) => r.status)).toEqual(names.map(() => 201));
      expect(retries.map((r) => r.body.data?.name)).toEqual(names);

      const list = await fetch(`${running.url}/api/v1/projects?limit=100`, { headers: { Authorization: `Bearer ${apiKey}` } });
      const projects = ((await list.json()) as { data: Array<{ id: string; name: string }> }).data;
      expect(projects.map((p) => p.name).sort()).toEqual([...names].sort());
      // Each retry answered with the one project its key made.
      for (const r of retries) expect(projects.find((p) => p.name === r.name)?.id).toBe(r.body.data?.id);
    } finally {
      if (running && running.child.exitCode === null && running.child.signalCode === null) {
        running.child.kill("SIGTERM");
        await running.exited;
      }
      await data.cleanup();
    }
  }, 90_000);
});
