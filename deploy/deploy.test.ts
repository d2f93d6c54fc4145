import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import Ajv from "ajv";
import yaml from "js-yaml";

// Deployment artefacts cannot be applied here (no cluster, no helm binary); these checks keep them in
// step with the services: a new deployable without its template or manifest fails the build.

const root = resolve(__dirname, "..");
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { listDeployables } = require("./entrypoint.js") as { listDeployables: () => Array<{ name: string; protocol: string; port: number }> };
const deployables = listDeployables().filter((d) => d.name !== "all-in-one");
const camel = (s: string) => s.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
const read = (...p: string[]) => readFileSync(join(root, ...p), "utf8");

describe("deployment artefacts", () => {
  it("finds the deployables the services declare", () => {
    expect(deployables.map((d) => d.name).sort()).toEqual(expect.arrayContaining(["account", "gateway", "project"]));
  });

  it("gives every deployable under services/ a chart template, a values block and a kustomize manifest", () => {
    const values = yaml.load(read("charts/earshot/values.yaml")) as Record<string, unknown>;
    const kustomization = yaml.load(read("deploy/k8s/kustomization.yaml")) as { resources: string[] };
    for (const d of deployables) {
      expect(read("charts/earshot/templates", `${d.name}.yaml`)).toContain(`"name" "${d.name}"`);
      expect(values[camel(d.name)]).toMatchObject({ enabled: true, port: d.port });
      expect(read("deploy/k8s", `${d.name}.yaml`)).toContain(`args: ["${d.name}"]`);
      expect(kustomization.resources).toContain(`${d.name}.yaml`);
    }
  });

  it("validates values.yaml against values.schema.json", () => {
    const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
    const validate = ajv.compile(JSON.parse(read("charts/earshot/values.schema.json")));
    const ok = validate(yaml.load(read("charts/earshot/values.yaml")));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("has a schema that rejects an unknown key in a service block", () => {
    const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
    const validate = ajv.compile(JSON.parse(read("charts/earshot/values.schema.json")));
    const values = yaml.load(read("charts/earshot/values.yaml")) as Record<string, Record<string, unknown>>;
    const typo = { ...values, account: { ...values.account, replicas: 3 } };
    expect(validate(typo)).toBe(false);
  });

  it("has a schema block for every deployable", () => {
    const schema = JSON.parse(read("charts/earshot/values.schema.json")) as { properties: Record<string, unknown> };
    for (const d of deployables) expect(schema.properties[camel(d.name)]).toEqual({ $ref: "#/definitions/component" });
  });

  it("holds a Deployment and a Service with probes and a non-root security context in every kustomize manifest", () => {
    for (const d of deployables) {
      const docs = yaml.loadAll(read("deploy/k8s", `${d.name}.yaml`)) as Array<Record<string, any>>;
      const deployment = docs.find((x) => x.kind === "Deployment");
      const service = docs.find((x) => x.kind === "Service");
      expect(service?.metadata.name).toBe(d.name);
      const pod = deployment?.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      const container = pod.containers[0];
      expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
      if (d.protocol === "grpc") expect(container.readinessProbe.grpc.port).toBe(d.port);
      else expect(container.readinessProbe.httpGet.path).toBe("/readyz");
      expect(container.livenessProbe).toBeDefined();
      expect(container.resources.requests).toBeDefined();
    }
  });

  it("keeps block and end actions balanced in every chart template", () => {
    const dir = join(root, "charts/earshot/templates");
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), "utf8");
      const opens = (text.match(/\{\{-?\s*(if|range|with|define)\b/g) ?? []).length;
      const ends = (text.match(/\{\{-?\s*end\b/g) ?? []).length;
      expect({ file, balance: opens - ends }).toEqual({ file, balance: 0 });
    }
  });

  it("has an entrypoint that rejects an unknown deployable and lists the known ones", () => {
    const res = spawnSync(process.execPath, [join(root, "deploy/entrypoint.js"), "no-such-thing"], { encoding: "utf8" });
    expect(res.status).toBe(64);
    for (const d of deployables) expect(res.stderr).toContain(d.name);
  });
});
