import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import Ajv from "ajv";
import yaml from "js-yaml";

// Deployment artefacts cannot be applied here (no cluster, no docker, no helm binary); these checks keep
// them in step with the services: a new deployable in services/*/package.json without its chart
// template, values block, schema entry or kustomize manifest fails the build.

type Deployable = { name: string; entry: string; protocol: "grpc" | "http"; port: number; dir: string };
type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const root = path.resolve(__dirname, "..");
const chart = path.join(root, "charts", "earshot");
const k8s = path.join(root, "deploy", "k8s");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { listDeployables } = require("./entrypoint.js") as { listDeployables: () => Deployable[] };

const read = (file: string) => readFileSync(file, "utf8");
const camel = (s: string) => s.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
const addrVar = (name: string) => `${name.toUpperCase().replace(/-/g, "_")}_GRPC_ADDR`;

// Read package.json files directly too, so the test does not only trust the entrypoint's scan.
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

describe("deployment artefacts", () => {
  it("the services declare their deployables with a name, an entry, a protocol and a port", () => {
    expect(deployables.map((d) => d.name)).toEqual(expect.arrayContaining(["account", "project", "gateway"]));
    for (const d of deployables) {
      expect(d).toMatchObject({ name: expect.stringMatching(/^[a-z][a-z0-9-]*$/), entry: expect.stringMatching(/^dist\/.+\.js$/) });
      expect(["grpc", "http"]).toContain(d.protocol);
      expect(Number.isInteger(d.port)).toBe(true);
    }
    expect(new Set(deployables.map((d) => d.name)).size).toBe(deployables.length);
    // The entrypoint knows exactly these, plus all-in-one.
    expect(listDeployables().map((d) => d.name).sort()).toEqual(["all-in-one", ...deployables.map((d) => d.name)].sort());
  });

  it("every deployable under services/ has a chart template, a values block and a kustomize manifest", () => {
    const vals = values();
    const schema = JSON.parse(read(path.join(chart, "values.schema.json"))) as { properties: Record<string, unknown>; required: string[] };
    const kustomization = yaml.load(read(path.join(k8s, "kustomization.yaml"))) as { resources: string[] };
    const kConfig = yaml.loadAll(read(path.join(k8s, "configmap.yaml"))) as Doc[];
    const chartConfig = read(path.join(chart, "templates", "configmap.yaml"));
    const missing: string[] = [];
    for (const d of deployables) {
      const key = camel(d.name);
      const template = path.join(chart, "templates", `${d.name}.yaml`);
      if (!existsSync(template)) missing.push(`charts/earshot/templates/${d.name}.yaml`);
      else {
        const text = read(template);
        if (!text.includes(`.Values.${key}.enabled`)) missing.push(`${d.name}.yaml: guard on .Values.${key}.enabled`);
        if (!text.includes(`"name" "${d.name}"`)) missing.push(`${d.name}.yaml: "name" "${d.name}"`);
        if (!text.includes(`"protocol" "${d.protocol}"`)) missing.push(`${d.name}.yaml: "protocol" "${d.protocol}"`);
      }
      if (!vals[key]) missing.push(`values.yaml: ${key}`);
      else if (vals[key].port !== d.port) missing.push(`values.yaml: ${key}.port should be ${d.port}`);
      if (!schema.properties[key] || !schema.required.includes(key)) missing.push(`values.schema.json: ${key}`);
      if (!existsSync(path.join(k8s, `${d.name}.yaml`))) missing.push(`deploy/k8s/${d.name}.yaml`);
      if (!kustomization.resources.includes(`${d.name}.yaml`)) missing.push(`kustomization.yaml resources: ${d.name}.yaml`);
      if (d.protocol === "grpc") {
        if (kConfig[0]?.data?.[addrVar(d.name)] !== `${d.name}:${d.port}`) missing.push(`deploy/k8s/configmap.yaml: ${addrVar(d.name)}`);
        if (!chartConfig.includes(`${addrVar(d.name)}:`)) missing.push(`charts/earshot/templates/configmap.yaml: ${addrVar(d.name)}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("values.yaml validates against values.schema.json", () => {
    const validate = compileSchema();
    const ok = validate(values());
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("the schema rejects an unknown key in a service block", () => {
    const validate = compileSchema();
    const vals = values();
    for (const d of deployables) {
      const key = camel(d.name);
      expect(validate({ ...vals, [key]: { ...vals[key], replicas: 3 } })).toBe(false);
      expect(validate.errors?.some((e) => e.keyword === "additionalProperties" && e.params.additionalProperty === "replicas")).toBe(true);
      expect(validate({ ...vals, [key]: { ...vals[key], autoscaling: { ...vals[key].autoscaling, maxReplica: 4 } } })).toBe(false);
    }
    expect(validate({ ...vals, global: { ...vals.global, mongoURL: "mongodb://x" } })).toBe(false);
    expect(validate({ ...vals, acount: vals.account })).toBe(false);
  });

  it("every kustomize manifest holds a Deployment and a Service with probes and a non-root security context", () => {
    const kustomization = yaml.load(read(path.join(k8s, "kustomization.yaml"))) as { images: Array<{ name: string }> };
    expect(kustomization.images.map((i) => i.name)).toContain("earshot");
    for (const d of deployables) {
      const docs = yaml.loadAll(read(path.join(k8s, `${d.name}.yaml`))) as Doc[];
      const deployment = docs.find((x) => x.kind === "Deployment");
      const service = docs.find((x) => x.kind === "Service");
      expect(deployment?.metadata.name).toBe(d.name);
      expect(service?.metadata.name).toBe(d.name);
      const pod = deployment!.spec.template.spec;
      expect(pod.terminationGracePeriodSeconds).toBe(15);
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: "RuntimeDefault" } });
      expect(pod.volumes).toContainEqual({ name: "tmp", emptyDir: {} });
      expect(pod.containers).toHaveLength(1);
      const container = pod.containers[0];
      expect(container.image).toBe("earshot");
      expect(container.args).toEqual([d.name]);
      expect(container.ports.map((p: Doc) => p.containerPort)).toContain(d.port);
      expect(container.envFrom).toEqual(
        expect.arrayContaining([{ configMapRef: { name: "earshot-config" } }, { secretRef: { name: "earshot-secrets" } }]),
      );
      expect(container.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
      });
      expect(container.volumeMounts).toContainEqual({ name: "tmp", mountPath: "/tmp" });
      if (d.protocol === "grpc") {
        expect(container.readinessProbe.grpc.port).toBe(d.port);
        expect(container.livenessProbe.grpc.port).toBe(d.port);
      } else {
        expect(container.readinessProbe.httpGet.path).toBe("/readyz");
        expect(container.livenessProbe.httpGet.path).toBe("/healthz");
      }
      expect(container.resources.requests).toBeDefined();
      expect(service!.spec.selector).toEqual(deployment!.spec.selector.matchLabels);
      expect(deployment!.spec.template.metadata.labels).toMatchObject(deployment!.spec.selector.matchLabels);
    }
    const secret = yaml.load(read(path.join(k8s, "secret.yaml"))) as Doc;
    expect(secret).toMatchObject({ kind: "Secret", metadata: { name: "earshot-secrets" } });
    expect(Object.keys(secret.stringData)).toEqual(expect.arrayContaining(["MONGO_URL", "EARSHOT_SMTP_URL"]));
  });

  it("every chart template has balanced block and end actions", () => {
    const dir = path.join(chart, "templates");
    const unbalanced: string[] = [];
    for (const file of readdirSync(dir)) {
      // Comments may mention actions; only real ones count.
      const text = read(path.join(dir, file)).replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, "");
      let depth = 0;
      for (const m of text.matchAll(/\{\{-?\s*(if|range|with|define|block|else|end)\b/g)) {
        if (m[1] === "end") depth--;
        else if (m[1] !== "else") depth++;
        if (depth < 0) break;
      }
      if (depth !== 0) unbalanced.push(`${file}: ${depth}`);
      // Every opening delimiter has its closing one.
      if ((text.match(/\{\{/g) ?? []).length !== (text.match(/\}\}/g) ?? []).length) unbalanced.push(`${file}: delimiters`);
    }
    expect(unbalanced).toEqual([]);
  });

  it("the entrypoint rejects an unknown deployable and lists the known ones", () => {
    const res = spawnSync(process.execPath, [path.join(root, "deploy", "entrypoint.js"), "no-such-thing"], { encoding: "utf8" });
    expect(res.status).toBe(64);
    expect(res.stderr).toContain("no-such-thing");
    for (const name of ["all-in-one", ...deployables.map((d) => d.name)]) expect(res.stderr).toContain(name);
    const none = spawnSync(process.execPath, [path.join(root, "deploy", "entrypoint.js")], { encoding: "utf8" });
    expect(none.status).toBe(64);
  });
});
