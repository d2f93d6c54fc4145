import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Ajv from "ajv";
import yaml from "js-yaml";
import { CALLABLE_SERVICES, deployables as registered } from "@earshot/registry";

// Deployment artefacts cannot be applied here (no cluster, no docker; render.test.ts renders them with the
// real helm and kubectl); these checks keep them in step with the services. The per-deployable files are written from the service registry
// (services/registry, `npm run sync-services`, which also checks they are current); these tests check
// what they say: every registered deployable is declared where the image's entrypoint finds it and has a
// chart template, values block, schema entry and kustomize manifest of the right shape.

type Deployable = { name: string; entry: string; protocol: "grpc" | "http"; port: number; dir: string };
type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const root = path.resolve(__dirname, "..");
const chart = path.join(root, "charts", "earshot");
const templatesDir = path.join(chart, "templates");
const k8s = path.join(root, "deploy", "k8s");
const entrypoint = path.join(root, "deploy", "entrypoint.js");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { listDeployables } = require("./entrypoint.js") as { listDeployables: () => Deployable[] };

const read = (file: string) => readFileSync(file, "utf8");
const camel = (s: string) => s.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
const addrVar = (name: string) => `${name.toUpperCase().replace(/-/g, "_")}_GRPC_ADDR`;

// Read whatever services/*/package.json exist, so the test does not only trust the entrypoint's scan.
const declared = (): Deployable[] =>
  readdirSync(path.join(root, "services"))
    .filter((dir) => existsSync(path.join(root, "services", dir, "package.json")))
    .flatMap((dir) => {
      const pkg = JSON.parse(read(path.join(root, "services", dir, "package.json")));
      return ((pkg.earshot?.deployables ?? []) as Deployable[]).map((d) => ({ ...d, dir }));
    });
const deployables = declared();

const compileSchema = () => {
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strict: true });
  return ajv.compile(JSON.parse(read(path.join(chart, "values.schema.json"))));
};
const values = () => yaml.load(read(path.join(chart, "values.yaml"))) as Record<string, Doc>;
const templateFiles = () => readdirSync(templatesDir).filter((f) => /\.(ya?ml|tpl|txt)$/.test(f));

/**
 * Go template comments, `{{/* ... *\/}}` or `{{- /* ... *\/ -}}`, end at the first `*\/`, which must be
 * followed at once by the closing delimiter: a `*\/` inside the text (say, a glob) breaks the parse.
 * Returns the text without its comments and the problems found.
 */
const stripComments = (text: string): { text: string; problems: string[] } => {
  const problems: string[] = [];
  let out = "";
  let at = 0;
  const open = /\{\{(-\s+)?\/\*/g;
  for (let m = open.exec(text); m; m = open.exec(text)) {
    const close = text.indexOf("*/", m.index + m[0].length);
    const line = text.slice(0, m.index).split("\n").length;
    const after = close < 0 ? null : /^(\s+-)?\}\}/.exec(text.slice(close + 2));
    if (close < 0 || !after) {
      problems.push(`line ${line}: comment not closed by "*/}}"`);
      break;
    }
    out += text.slice(at, m.index);
    at = close + 2 + after[0].length;
    open.lastIndex = at;
  }
  return { text: out + text.slice(at), problems };
};

describe("deployment artefacts", () => {
  it("the services declare their deployables with a name, an entry, a protocol and a port", () => {
    expect(deployables.map((d) => d.name)).toEqual(expect.arrayContaining(["account", "project", "gateway"]));
    // Exactly the registry's deployables, each declared by the package that holds its entry.
    const fromRegistry = registered().map((d) => ({ name: d.name, entry: d.entry, protocol: d.protocol, port: d.port, dir: d.module.replace("@earshot/", "") }));
    expect([...deployables].sort((a, b) => a.name.localeCompare(b.name))).toEqual(fromRegistry.sort((a, b) => a.name.localeCompare(b.name)));
    for (const d of deployables) {
      expect(d).toMatchObject({ name: expect.stringMatching(/^[a-z][a-z0-9-]*$/), entry: expect.stringMatching(/^dist\/.+\.js$/) });
      expect(["grpc", "http"]).toContain(d.protocol);
      expect(Number.isInteger(d.port)).toBe(true);
    }
    expect(new Set(deployables.map((d) => d.name)).size).toBe(deployables.length);
    // The entrypoint knows exactly these, plus all-in-one.
    expect(listDeployables().map((d) => d.name).sort()).toEqual(["all-in-one", ...deployables.map((d) => d.name)].sort());
  });

  it("every deployable under services/ has a chart template and a kustomize manifest", () => {
    const vals = values();
    const schema = JSON.parse(read(path.join(chart, "values.schema.json"))) as { properties: Record<string, unknown>; required: string[] };
    const kustomization = yaml.load(read(path.join(k8s, "kustomization.yaml"))) as { resources: string[] };
    const kConfig = yaml.loadAll(read(path.join(k8s, "configmap.yaml"))) as Doc[];
    const chartConfig = read(path.join(templatesDir, "configmap.yaml"));
    const callable = new Set<string>(CALLABLE_SERVICES.map((s) => s.name));
    const missing: string[] = [];
    for (const d of deployables) {
      const key = camel(d.name);
      const template = path.join(templatesDir, `${d.name}.yaml`);
      if (!existsSync(template)) missing.push(`charts/earshot/templates/${d.name}.yaml`);
      else {
        const text = read(template);
        if (!text.includes(`.Values.${key}.enabled`)) missing.push(`${d.name}.yaml: guard on .Values.${key}.enabled`);
        if (!text.includes(`"name" "${d.name}"`)) missing.push(`${d.name}.yaml: "name" "${d.name}"`);
        if (!text.includes(`.Values.${key} `)) missing.push(`${d.name}.yaml: "values" .Values.${key}`);
        if (!text.includes(`"protocol" "${d.protocol}"`)) missing.push(`${d.name}.yaml: "protocol" "${d.protocol}"`);
      }
      if (!vals[key]) missing.push(`values.yaml: ${key}`);
      else if (vals[key].port !== d.port) missing.push(`values.yaml: ${key}.port should be ${d.port}`);
      if (!schema.properties[key] || !schema.required.includes(key)) missing.push(`values.schema.json: ${key}`);
      if (!existsSync(path.join(k8s, `${d.name}.yaml`))) missing.push(`deploy/k8s/${d.name}.yaml`);
      if (!kustomization.resources.includes(`${d.name}.yaml`)) missing.push(`kustomization.yaml resources: ${d.name}.yaml`);
      // Only a service something calls publishes its address; a pure event consumer serves health alone.
      if (d.protocol === "grpc" && callable.has(d.name)) {
        if (kConfig[0]?.data?.[addrVar(d.name)] !== `${d.name}:${d.port}`) missing.push(`deploy/k8s/configmap.yaml: ${addrVar(d.name)}`);
        if (!chartConfig.includes(`${addrVar(d.name)}:`)) missing.push(`charts/earshot/templates/configmap.yaml: ${addrVar(d.name)}`);
      }
    }
    // Every manifest the kustomization lists exists.
    for (const r of kustomization.resources) if (!existsSync(path.join(k8s, r))) missing.push(`deploy/k8s/${r} (listed in kustomization.yaml)`);
    expect(missing).toEqual([]);
  });

  it("the chart gives every deployable a metrics port with scrape annotations", () => {
    const helpers = read(path.join(templatesDir, "_helpers.tpl"));
    expect(helpers).toContain("- { name: EARSHOT_METRICS_PORT, value: {{ .root.Values.global.metricsPort | quote }} }");
    expect(helpers).toContain("prometheus.io/port: {{ $root.Values.global.metricsPort | quote }}");
    expect(helpers).toMatch(/- name: metrics\n\s+containerPort: \{\{ \$root\.Values\.global\.metricsPort \}\}/);
    expect(values().global.metricsPort).not.toBe(values().gateway.port);
  });

  it("both ConfigMaps name the proxies the gateways trust for client addresses", () => {
    const kConfig = yaml.loadAll(read(path.join(k8s, "configmap.yaml"))) as Doc[];
    expect(kConfig[0]?.data?.EARSHOT_TRUST_PROXY).toBe("1");
    expect(read(path.join(templatesDir, "configmap.yaml"))).toContain("EARSHOT_TRUST_PROXY: {{ .Values.global.trustProxy | quote }}");
    expect(values().global.trustProxy).toBe("1");
  });

  it("values.yaml validates against values.schema.json", () => {
    const validate = compileSchema();
    const ok = validate(values());
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    // The broker list may also be given as a list (helm --set 'global.kafkaBrokers={a:9092,b:9092}').
    const vals = values();
    expect(validate({ ...vals, global: { ...vals.global, kafkaBrokers: ["kafka-0:9092", "kafka-1:9092"] } })).toBe(true);
  });

  it("the schema rejects an unknown key in a service block", () => {
    const validate = compileSchema();
    const vals = values();
    // (A missing block is reported by the coverage test above.)
    for (const d of deployables.filter((x) => vals[camel(x.name)])) {
      const key = camel(d.name);
      expect(validate({ ...vals, [key]: { ...vals[key], replicas: 3 } })).toBe(false);
      expect(validate.errors?.some((e) => e.keyword === "additionalProperties" && e.params.additionalProperty === "replicas")).toBe(true);
      expect(validate({ ...vals, [key]: { ...vals[key], autoscaling: { ...vals[key].autoscaling, maxReplica: 4 } } })).toBe(false);
      expect(validate({ ...vals, [key]: { ...vals[key], replicaCount: "2" } })).toBe(false);
    }
    // global stays open to a parent chart's keys; Earshot's own keys in it are still checked.
    expect(validate({ ...vals, global: { ...vals.global, storageClass: "fast" } })).toBe(true);
    expect(validate({ ...vals, global: { ...vals.global, mongoUrl: "http://x" } })).toBe(false);
    expect(validate({ ...vals, acount: vals.account })).toBe(false);
  });

  it("every kustomize manifest parses and holds a Deployment and a Service with probes and a non-root security context", () => {
    const kustomization = yaml.load(read(path.join(k8s, "kustomization.yaml"))) as { images: Array<{ name: string }> };
    expect(kustomization.images.map((i) => i.name)).toContain("earshot");
    for (const d of deployables) {
      const docs = yaml.loadAll(read(path.join(k8s, `${d.name}.yaml`))) as Doc[];
      const deployment = docs.find((x) => x.kind === "Deployment");
      const service = docs.find((x) => x.kind === "Service");
      expect(deployment?.metadata.name).toBe(d.name);
      expect(service?.metadata.name).toBe(d.name);
      const pod = deployment!.spec.template.spec;
      // The preStop pause (5 s), then a drain within 10 s.
      expect(pod.terminationGracePeriodSeconds).toBe(20);
      expect(pod.containers[0].lifecycle.preStop.exec.command[0]).toBe("node");
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, seccompProfile: { type: "RuntimeDefault" } });
      expect(pod).toMatchObject({ serviceAccountName: d.name, automountServiceAccountToken: false });
      expect(pod.volumes).toContainEqual({ name: "tmp", emptyDir: {} });
      expect(pod.containers).toHaveLength(1);
      const container = pod.containers[0];
      expect(container.image).toBe("earshot");
      expect(container.args).toEqual([d.name]);
      expect(container.ports.map((p: Doc) => p.containerPort)).toContain(d.port);
      // Settings from the ConfigMap; secrets as files from the mounted Secret, never as environment values.
      expect(container.envFrom).toEqual([{ configMapRef: { name: "earshot-config" } }]);
      expect(container.env).toContainEqual({ name: "EARSHOT_SECRETS_DIR", value: "/etc/earshot/secrets" });
      expect(container.volumeMounts).toContainEqual({ name: "secrets", mountPath: "/etc/earshot/secrets", readOnly: true });
      expect(pod.volumes).toContainEqual({ name: "secrets", secret: { secretName: "earshot-secrets", defaultMode: 0o440 } });
      const listenPort = container.env.find((e: Doc) => e.name === (d.protocol === "grpc" ? "GRPC_PORT" : "PORT"));
      expect(listenPort?.value).toBe(String(d.port));
      expect(container.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      });
      // A read-only root filesystem: /tmp and the data dir (mail without SMTP) are writable volumes.
      expect(container.volumeMounts).toContainEqual({ name: "tmp", mountPath: "/tmp" });
      expect(container.volumeMounts).toContainEqual({ name: "data", mountPath: "/data" });
      // Plain HTTP probes, a gRPC service's on its metrics port (no client certificate needed under mutual TLS).
      const probePort = d.protocol === "grpc" ? "metrics" : "http";
      expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: probePort });
      expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: probePort });
      // Every deployable, gRPC services included: metrics on their own port, announced to the scraper and
      // open to it in the NetworkPolicy; the Service exposes only the public one.
      const metricsPort = container.env.find((e: Doc) => e.name === "EARSHOT_METRICS_PORT")?.value;
      expect(metricsPort).toMatch(/^\d+$/);
      expect(metricsPort).not.toBe(String(d.port));
      expect(container.ports).toContainEqual({ name: "metrics", containerPort: Number(metricsPort) });
      expect(deployment!.spec.template.metadata.annotations).toEqual({
        "prometheus.io/scrape": "true",
        "prometheus.io/port": metricsPort,
        "prometheus.io/path": "/metrics",
      });
      expect(service!.spec.ports.map((p: Doc) => p.targetPort)).not.toContain("metrics");
      const policy = docs.find((x) => x.kind === "NetworkPolicy");
      expect(policy!.spec.ingress).toContainEqual(expect.objectContaining({ ports: [{ port: Number(metricsPort), protocol: "TCP" }] }));
      expect(container.resources.requests).toBeDefined();
      expect(service!.spec.selector).toEqual(deployment!.spec.selector.matchLabels);
      expect(deployment!.spec.template.metadata.labels).toMatchObject(deployment!.spec.selector.matchLabels);
      const portNames = container.ports.map((p: Doc) => p.name);
      for (const p of service!.spec.ports) expect(portNames).toContain(p.targetPort);
    }
    const secret = yaml.load(read(path.join(k8s, "secret.yaml"))) as Doc;
    expect(secret).toMatchObject({ kind: "Secret", metadata: { name: "earshot-secrets" } });
    expect(Object.keys(secret.stringData)).toEqual(expect.arrayContaining(["MONGO_URL", "EARSHOT_SMTP_URL"]));
  });

  it("every chart template's comments close with */}}", () => {
    const problems = templateFiles().flatMap((file) => stripComments(read(path.join(templatesDir, file))).problems.map((p) => `${file}: ${p}`));
    expect(problems).toEqual([]);
    // The check itself: a glob inside a comment ends it early (Go: "comment ends before closing delimiter").
    expect(stripComments("{{/* services/*/package.json */}}").problems).toHaveLength(1);
    expect(stripComments("{{- /* fine */ -}}x{{/* also\nfine */}}").text).toBe("x");
  });

  it("every chart template has balanced if/range/with and end blocks", () => {
    const unbalanced: string[] = [];
    for (const file of templateFiles()) {
      const { text } = stripComments(read(path.join(templatesDir, file)));
      let depth = 0;
      for (const m of text.matchAll(/\{\{-?\s*(if|range|with|define|block|else|end)\b/g)) {
        if (m[1] === "end") depth--;
        else if (m[1] !== "else") depth++;
        if (depth < 0) break;
      }
      if (depth !== 0) unbalanced.push(`${file}: ${depth > 0 ? `${depth} block(s) not ended` : "an end without its block"}`);
      // Every opening delimiter has its closing one.
      if ((text.match(/\{\{/g) ?? []).length !== (text.match(/\}\}/g) ?? []).length) unbalanced.push(`${file}: delimiters`);
    }
    expect(unbalanced).toEqual([]);
  });

  it("every template the chart includes is defined once", () => {
    const defined: string[] = [];
    const included = new Set<string>();
    for (const file of templateFiles()) {
      const { text } = stripComments(read(path.join(templatesDir, file)));
      for (const m of text.matchAll(/\{\{-?\s*define\s+"([^"]+)"/g)) defined.push(m[1]!);
      for (const m of text.matchAll(/\b(?:include|template)\s+"([^"]+)"/g)) included.add(m[1]!);
    }
    expect(defined.filter((n, i) => defined.indexOf(n) !== i)).toEqual([]);
    expect([...included].filter((n) => !defined.includes(n))).toEqual([]);
    // The per-service templates stay thin: each renders through the shared earshot.service template.
    // (A missing template is reported by the coverage test above.)
    for (const d of deployables.filter((x) => existsSync(path.join(templatesDir, `${x.name}.yaml`)))) {
      expect(read(path.join(templatesDir, `${d.name}.yaml`))).toContain('include "earshot.service"');
    }
  });

  it("the entrypoint lists every deployable and rejects an unknown one", () => {
    const res = spawnSync(process.execPath, [entrypoint, "no-such-thing"], { encoding: "utf8" });
    expect(res.status).toBe(64);
    expect(res.stderr).toContain("no-such-thing");
    for (const name of ["all-in-one", ...deployables.map((d) => d.name)]) expect(res.stderr).toContain(name);
    const none = spawnSync(process.execPath, [entrypoint], { encoding: "utf8" });
    expect(none.status).toBe(64);
  });

  it("the entrypoint runs the deployable's entry as the main module", () => {
    // A copy of the entrypoint beside a fixture services/ tree (the real entries need a build).
    const dir = mkdtempSync(path.join(tmpdir(), "earshot-entrypoint-"));
    try {
      mkdirSync(path.join(dir, "deploy"));
      copyFileSync(entrypoint, path.join(dir, "deploy", "entrypoint.js"));
      const pkg = path.join(dir, "services", "demo");
      mkdirSync(path.join(pkg, "dist"), { recursive: true });
      writeFileSync(
        path.join(pkg, "package.json"),
        JSON.stringify({ name: "demo", earshot: { deployables: [{ name: "demo-svc", entry: "dist/run.js", protocol: "grpc", port: 50051 }] } }),
      );
      // Like services/edge's gateway-main: it starts only when it is the main module.
      writeFileSync(
        path.join(pkg, "dist", "run.js"),
        'if (require.main === module) console.log(JSON.stringify({ started: true, argv: process.argv.slice(2) }));\n',
      );
      const res = spawnSync(process.execPath, [path.join(dir, "deploy", "entrypoint.js"), "demo-svc", "--flag"], { encoding: "utf8" });
      expect(res.stderr).toBe("");
      expect(res.status).toBe(0);
      // Merely `require`d, the entry would print nothing.
      expect(res.stdout).toContain('"started":true');
      expect(JSON.parse(res.stdout)).toEqual({ started: true, argv: ["--flag"] });
      // A declared deployable whose entry was not built: a clear error, not a stack trace.
      const missing = spawnSync(process.execPath, [path.join(dir, "deploy", "entrypoint.js"), "all-in-one"], { encoding: "utf8" });
      expect(missing.status).toBe(1);
      expect(missing.stderr).toContain("services/all-in-one/dist/main.js does not exist");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the image is one non-root image whose entrypoint picks the deployable", () => {
    const dockerfile = read(path.join(root, "deploy", "Dockerfile"));
    expect(dockerfile.match(/^FROM node:20-bookworm-slim\b/gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^USER 10001:10001$/m);
    expect(dockerfile).toMatch(/^ENV NODE_ENV=production$/m);
    expect(dockerfile).toMatch(/npm prune --omit=dev/);
    expect(dockerfile).toContain('ENTRYPOINT ["node", "deploy/entrypoint.js"]');
    expect(dockerfile).toContain('CMD ["all-in-one"]');
    expect(dockerfile).toMatch(/^EXPOSE 8080 50051$/m);
    // npm nests a dependency under a workspace's own node_modules when versions differ: they must ship too.
    expect(dockerfile).toMatch(/for sub in [^;]*\bnode_modules\b/);
    const ignore = read(path.join(root, "deploy", "Dockerfile.dockerignore")).split("\n").map((l) => l.trim());
    for (const entry of ["**/node_modules", "**/dist", ".data", ".git"]) expect(ignore).toContain(entry);
  });
});
