import { spawn } from "node:child_process";
import { join } from "node:path";
import { createGrpcClient, runWithCaller, silentLogger } from "@earshot/platform";
import { testCaller } from "../../platform/src/testing/caller";
import { makeTempDir } from "../../platform/src/testing/tmp";
import { accountV1, commonV1, projectV1 } from "@earshot/proto";
import { CALLABLE_SERVICES } from "@earshot/registry";
import { startAllInOne } from "../src/all-in-one";
import { loadAllInOneConfig } from "../src/config";

const configFor = (dataDir: string, env: Record<string, string> = {}) =>
  loadAllInOneConfig({ EARSHOT_DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "silent", ...env });

describe("all-in-one", () => {
  it("serves /healthz and /readyz, naming every service as SERVING only on the admin port", async () => {
    const tmp = await makeTempDir();
    const running = await startAllInOne(configFor(tmp.dir, { EARSHOT_METRICS_PORT: "0" }), silentLogger());
    try {
      const health = await fetch(`${running.url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.headers.get("earshot-version")).toBe("2026-08-24");
      expect(health.headers.get("x-request-id")).toMatch(/^req_/);
      const ready = await fetch(`${running.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: "ready" });
      const detailed = await fetch(`${running.adminUrl}/readyz`);
      const body = (await detailed.json()) as { status: string; services: Array<{ name: string; status: string }> };
      expect(body.status).toBe("ready");
      expect(body.services.map((s) => [s.name, s.status])).toEqual(CALLABLE_SERVICES.map((s) => [s.name, "SERVING"]));
    } finally {
      await running.stop();
      await tmp.cleanup();
    }
  });

  it("answers an unknown route with problem+json carrying the request id", async () => {
    const tmp = await makeTempDir();
    const running = await startAllInOne(configFor(tmp.dir, { EARSHOT_METRICS_PORT: "0" }), silentLogger());
    try {
      const res = await fetch(`${running.url}/api/v1/nope`, { headers: { "X-Request-Id": "client-chosen-id-1" } });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(await res.json()).toMatchObject({ status: 404, code: "not_found", requestId: "client-chosen-id-1", title: "Not found" });
      const metrics = await (await fetch(`${running.adminUrl}/metrics`)).text();
      expect(metrics).toContain('route="unmatched",status="404"');
      // The hosted services' RPCs are counted in the same scrape (the first start called the account service).
      expect(metrics).toMatch(/earshot_grpc_server_handled_total\{method="\/earshot\.account\.v1\.AccountService\/[A-Za-z]+",code="[A-Z_]+"\} \d+/);
    } finally {
      await running.stop();
      await tmp.cleanup();
    }
  });

  it("finds the data of the first start after a restart", async () => {
    const tmp = await makeTempDir();
    try {
      const first = await startAllInOne(configFor(tmp.dir), silentLogger());
      const account = createGrpcClient(accountV1.AccountServiceClient, first.services.find((s) => s.name === "account")!.address, first.callKeys);
      const project = createGrpcClient(projectV1.ProjectServiceClient, first.services.find((s) => s.name === "project")!.address, first.callKeys);
      const { user } = await account.client.createUser({ email: "Ana@Example.com", name: "Ana", password: "correct horse" });
      const caller = testCaller(user!);
      const created = await runWithCaller(caller, () => project.client.createProject({ name: "Acme launch" }));
      account.close();
      project.close();
      await first.stop();

      const second = await startAllInOne(configFor(tmp.dir), silentLogger());
      const account2 = createGrpcClient(accountV1.AccountServiceClient, second.services.find((s) => s.name === "account")!.address, second.callKeys);
      const project2 = createGrpcClient(projectV1.ProjectServiceClient, second.services.find((s) => s.name === "project")!.address, second.callKeys);
      expect((await account2.client.getUser({ email: "ana@example.com" })).user).toMatchObject({ id: user!.id, name: "Ana" });
      const got = await runWithCaller(caller, () => project2.client.getProject({ projectId: created.project!.id }));
      const { Role, Source } = commonV1;
      expect(got.project).toMatchObject({
        name: "Acme launch",
        role: Role.ROLE_OWNER,
        color: "#7e47eb",
        enabledSources: [
          Source.SOURCE_X,
          Source.SOURCE_REDDIT,
          Source.SOURCE_YOUTUBE,
          Source.SOURCE_LINKEDIN,
          Source.SOURCE_HACKERNEWS,
          Source.SOURCE_BLUESKY,
          Source.SOURCE_RSS,
          Source.SOURCE_GITHUB,
        ],
      });
      account2.close();
      project2.close();
      await second.stop();
    } finally {
      await tmp.cleanup();
    }
  });

  it("exits 0 within 10 s of SIGTERM and leaves the data dir free for the next start", async () => {
    const tmp = await makeTempDir();
    try {
      const child = spawn(process.execPath, [join(__dirname, "../../platform/test/ts-child.js"), join(__dirname, "../src/main.ts")], {
        env: { ...process.env, EARSHOT_DATA_DIR: tmp.dir, PORT: "0", LOG_LEVEL: "warn" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /Earshot is running at (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1] as string);
        });
        child.on("exit", (code) => reject(new Error(`exited ${code} before listening: ${err}`)));
      });
      expect(out).toMatch(/account\s+gRPC 127\.0\.0\.1:\d+/);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      const started = Date.now();
      const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exit).toBe(0);
      expect(Date.now() - started).toBeLessThan(10_000);
      const again = await startAllInOne(configFor(tmp.dir), silentLogger());
      await again.stop();
    } finally {
      await tmp.cleanup();
    }
  }, 30_000);
});
