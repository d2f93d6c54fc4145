import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { declaredSettings, secret } from "@earshot/platform";
import Ajv from "ajv";
import yaml from "js-yaml";
import { z } from "zod";
import { grpcAddrVar } from "../names";
import { deployables, SERVICES, type ServiceEntry } from "../services";
import { CHART_DIR, renderChartConfigMap, renderChartSecret, renderChartTemplate, renderValues, renderValuesSchema } from "./chart";
import { derivedFiles, HAND_WRITTEN } from "./derived-files";
import { K8S_DIR, renderK8sConfigMap, renderK8sDeployable, renderK8sSecret, renderKustomization } from "./k8s";
import { declaredServiceSettings } from "./settings";
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { workspaceEntryPoints } = require("../../../platform/src/testing/workspace-sources") as {
  workspaceEntryPoints: (root: string) => Array<{ specifier: string; source: string }>;
};
import { renderAllInOneTsconfig, renderRootTsconfig, TEST_SOURCES, withDeployables, withServiceDependencies } from "./workspace";

const root = resolve(__dirname, "../../../..");
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;
const registered = declaredServiceSettings();
const mapper = Object.entries((require(join(root, "jest.config.js")) as { moduleNameMapper: Record<string, string> }).moduleNameMapper); // eslint-disable-line @typescript-eslint/no-require-imports
/** Where jest resolves a specifier, or undefined. */
const mapped = (specifier: string): string | undefined => {
  const hit = mapper.find(([pattern]) => new RegExp(pattern).test(specifier));
  return hit && specifier.replace(new RegExp(hit[0]), hit[1]).replace("<rootDir>", root);
};
const validatorOf = (schemaText: string) => new Ajv({ strict: true, allowUnionTypes: true }).compile(JSON.parse(schemaText));

describe("files derived from the service registry", () => {
  it("the checked-in workspace and deployment files are those the registry derives (npm run sync-services)", async () => {
    const stale = (await derivedFiles(root))
      .filter((f) => !existsSync(join(root, f.path)) || readFileSync(join(root, f.path), "utf8") !== f.content)
      .map((f) => f.path);
    expect(stale).toEqual([]);
  });

  it("leaves no manifest or chart template of a deployable the registry does not have", async () => {
    const wanted = new Set([...(await derivedFiles(root)).map((f) => f.path), ...HAND_WRITTEN]);
    const present = [K8S_DIR, `${CHART_DIR}/templates`].flatMap((dir) => readdirSync(join(root, dir)).map((name) => `${dir}/${name}`));
    expect(present.filter((p) => !wanted.has(p))).toEqual([]);
  });

  it("keeps every package's test code (tests and test-support helpers) out of its build", () => {
    const packages = readdirSync(join(root, "services")).filter((dir) => existsSync(join(root, "services", dir, "tsconfig.json")));
    const excludes = packages.map((dir) => [dir, (JSON.parse(readFileSync(join(root, "services", dir, "tsconfig.json"), "utf8")) as { exclude?: string[] }).exclude]);
    // The platform's test helpers (`@earshot/platform/testing`) are test code too.
    expect(excludes).toEqual(packages.map((dir) => [dir, dir === "platform" ? [...TEST_SOURCES, "src/testing/**"] : TEST_SOURCES]));
  });

  it("a new registry entry gets its references, dependency, deployable, manifest, chart template, values, schema and address", () => {
    const notice: ServiceEntry = { name: "notice", protoPackage: "earshot.notice.v1", client: SERVICES[0].client, module: "@earshot/notice" };
    const services = [...SERVICES, notice];
    const ds = deployables(services);
    const added = ds.find((d) => d.name === "notice")!;
    expect(added).toMatchObject({ protocol: "grpc", port: 50051, entry: "dist/main.js", module: "@earshot/notice" });

    const rootRefs = (JSON.parse(renderRootTsconfig(services)) as { references: Array<{ path: string }> }).references.map((r) => r.path);
    expect(rootRefs).toContain("services/notice");
    // A service builds after the libraries it uses and before the applications that host or call it.
    expect(rootRefs.indexOf("services/notice")).toBeGreaterThan(rootRefs.indexOf("services/registry"));
    expect(rootRefs.indexOf("services/notice")).toBeLessThan(rootRefs.indexOf("services/all-in-one"));
    expect(renderAllInOneTsconfig(services)).toContain('{ "path": "../notice" }');
    expect(withServiceDependencies({ dependencies: { zod: "4" } }, services, "0.1.0").dependencies).toMatchObject({ "@earshot/notice": "0.1.0", zod: "4" });
    expect(withDeployables({ name: "@earshot/notice" }, "@earshot/notice", ds).earshot).toEqual({
      deployables: [{ name: "notice", entry: "dist/main.js", protocol: "grpc", port: 50051 }],
    });

    const manifest = yaml.loadAll(renderK8sDeployable(added)) as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(manifest.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual(["ServiceAccount/notice", "Deployment/notice", "Service/notice", "NetworkPolicy/notice", "PodDisruptionBudget/notice"]);
    expect(manifest[1]!.spec.template.spec.containers[0].args).toEqual(["notice"]);
    expect((yaml.load(renderKustomization(ds, "1.0.0")) as { resources: string[] }).resources).toContain("notice.yaml");
    expect((yaml.load(renderK8sConfigMap(ds)) as { data: Record<string, string> }).data[grpcAddrVar("notice")]).toBe("notice:50051");

    expect(renderChartTemplate(added)).toContain('(dict "root" $ "name" "notice" "values" .Values.notice "protocol" "grpc")');
    // The edge calls it, so its NetworkPolicy admits the two gateways, and theirs let them dial it.
    expect(renderChartTemplate(added)).toContain('"callers" (list "gateway" "mcp-gateway")');
    expect(renderChartTemplate(ds.find((d) => d.name === "gateway")!)).toContain('(dict "name" "notice" "port" .Values.notice.port)');
    expect(renderChartConfigMap(ds)).toContain('NOTICE_GRPC_ADDR: {{ printf "%s-notice:%v" .Release.Name .Values.notice.port | quote }}');
    const values = yaml.load(renderValues(ds, registered)) as Record<string, unknown>;
    expect(values.notice).toMatchObject({ enabled: true, port: 50051 });
    const validate = validatorOf(renderValuesSchema(ds, registered));
    expect(validate(values)).toBe(true);
    const { notice: _dropped, ...withoutBlock } = values;
    expect(validate(withoutBlock)).toBe(false);
  });

  it("a new service's declared settings reach the chart's values, schema, Secret and ConfigMap, and the example Secret", () => {
    const alertSettings = {
      EARSHOT_ALERT_SIGNING_KEY: secret(z.string().optional(), { requiredWhenDeployed: true, note: "Signs alert links." }),
      EARSHOT_ALERT_SMTP_PASSWORD: secret(z.string().optional()),
      EARSHOT_ALERT_BATCH: z.coerce.number().default(10),
    };
    const settings = [...registered, ...declaredSettings([{ owner: "alert", shape: alertSettings }])];
    const ds = deployables();

    const values = yaml.load(renderValues(ds, settings)) as Doc;
    expect(values.global).toMatchObject({ alertSigningKey: "", secrets: {}, settings: {} });
    const validate = validatorOf(renderValuesSchema(ds, settings));
    const withGlobal = (global: Doc) => ({ ...values, global: { ...values.global, ...global } });
    expect(validate(withGlobal({ secrets: { EARSHOT_ALERT_SMTP_PASSWORD: "pw" }, settings: { EARSHOT_ALERT_BATCH: 50 } }))).toBe(true);
    // Only declared names, each in its own map: a typo or a secret among the plain settings fails the install.
    expect(validate(withGlobal({ secrets: { EARSHOT_ALERT_SMTP_PASSWROD: "pw" } }))).toBe(false);
    expect(validate(withGlobal({ settings: { EARSHOT_ALERT_SMTP_PASSWORD: "pw" } }))).toBe(false);
    expect(validate(withGlobal({ secrets: { EARSHOT_ALERT_BATCH: "50" } }))).toBe(false);

    expect(renderChartSecret(settings)).toContain(
      'EARSHOT_ALERT_SIGNING_KEY: {{ required "global.alertSigningKey (or global.existingSecret) is required" .Values.global.alertSigningKey | quote }}',
    );
    expect(renderChartConfigMap(ds)).toContain("range $name, $value := .Values.global.settings");
    const example = renderK8sSecret(settings);
    expect((yaml.load(example) as Doc).stringData).toMatchObject({ EARSHOT_ALERT_SIGNING_KEY: "REPLACE_ME", EARSHOT_ENCRYPTION_KEY: "REPLACE_ME" });
    expect(example).toContain("  # EARSHOT_ALERT_SMTP_PASSWORD: REPLACE_ME\n");
    expect(example).not.toContain("EARSHOT_ALERT_BATCH");
  });

  it("a consumer-only entry (no client) is deployed with HTTP probes on its metrics port but gets no <NAME>_GRPC_ADDR", () => {
    const notifier: ServiceEntry = { name: "notifier", protoPackage: "earshot.notifier.v1", module: "@earshot/notifier" };
    const ds = deployables([...SERVICES, notifier]);
    const added = ds.find((d) => d.name === "notifier")!;
    expect(added).toMatchObject({ protocol: "grpc", callable: false });
    const manifest = yaml.loadAll(renderK8sDeployable(added)) as Doc[];
    // Plain HTTP on the metrics port: a kubelet's gRPC probe could not present a client certificate under mutual TLS.
    expect(manifest[1]!.spec.template.spec.containers[0].readinessProbe).toMatchObject({ httpGet: { path: "/readyz", port: "metrics" } });
    expect(manifest[1]!.spec.template.spec.containers[0].livenessProbe).toMatchObject({ httpGet: { path: "/healthz", port: "metrics" } });
    expect((yaml.load(renderK8sConfigMap(ds)) as Doc).data).not.toHaveProperty(grpcAddrVar("notifier"));
    expect(renderChartConfigMap(ds)).not.toContain(grpcAddrVar("notifier"));
  });
});

describe("who calls whom, from the registry (the NetworkPolicies follow it)", () => {
  it("the edge calls every service with a client; a service calling another declares it and becomes one of its callers", () => {
    const notice: ServiceEntry = { name: "notice", protoPackage: "earshot.notice.v1", client: SERVICES[0].client, module: "@earshot/notice", calls: ["account"] };
    const ds = deployables([...SERVICES, notice]);
    const by = (name: string) => ds.find((d) => d.name === name)!;
    expect(by("account").callers).toEqual(["gateway", "mcp-gateway", "notice"]);
    expect(by("notice").calls).toEqual(["account"]);
    expect(by("gateway").calls).toEqual(expect.arrayContaining(["account", "notice"]));
    // A consumer-only service is called by no one.
    expect(by("delivery").callers).toEqual([]);
    const policy = yaml.loadAll(renderK8sDeployable(by("notice"), new Map([["account", 50051]]))) as Doc[];
    expect(policy[3]!.spec.egress).toContainEqual({ to: [{ podSelector: { matchLabels: { "app.kubernetes.io/name": "account" } } }], ports: [{ port: 50051, protocol: "TCP" }] });
  });

  it("refuses a service declaring a call to a service with no client", () => {
    const bad: ServiceEntry = { name: "notice", protoPackage: "earshot.notice.v1", module: "@earshot/notice", calls: ["delivery"] };
    expect(() => deployables([...SERVICES, bad])).toThrow("service notice calls delivery, which no registered service with a client is");
  });
});

describe("the service registry", () => {
  it("names each deployable once, with a client of its service's protobuf package and a workspace package of its service's name", () => {
    const names = SERVICES.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(deployables().map((d) => d.name)).size).toBe(deployables().length);
    for (const s of SERVICES as readonly ServiceEntry[]) {
      // A service's second deployable carries the service's store, package and protobuf package.
      const service = s.store ?? s.name;
      expect(s.name).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(s.protoPackage).toBe(`earshot.${service.replace(/-/g, "_")}.v1`);
      if (s.client) expect((s.client as unknown as { serviceName: string }).serviceName.startsWith(`${s.protoPackage}.`)).toBe(true);
      expect(existsSync(join(root, "proto", ...s.protoPackage.split(".")))).toBe(true);
      expect(s.module).toBe(`@earshot/${service}`);
      if (s.store) expect(SERVICES.some((first) => first.name === s.store && first.module === s.module)).toBe(true);
    }
  });

  it("every registered package's entry point resolves, under jest as under node, to its own sources", () => {
    for (const s of SERVICES as readonly ServiceEntry[]) {
      const service = s.store ?? s.name;
      expect(mapped(s.module)).toBe(join(root, "services", service, "src", "index.ts"));
      expect(JSON.parse(readFileSync(join(root, "services", service, "package.json"), "utf8")).name).toBe(s.module);
    }
  });
});

describe("the jest module mappings", () => {
  it("map every entry point a workspace package.json exports to the source its dist file is compiled from", () => {
    const points = workspaceEntryPoints(root);
    for (const p of points) {
      expect(mapped(p.specifier)).toBe(join(root, p.source));
      expect(existsSync(join(root, p.source))).toBe(true);
    }
    expect(points.map((p) => p.specifier)).toEqual(
      expect.arrayContaining(["@earshot/proto", "@earshot/platform/core", "@earshot/platform/testing", "@earshot/contracts/matcher", "@earshot/account/scopes", "@earshot/project/fields"]),
    );
    expect(mapped("@earshot/contracts/events")).toBe(join(root, "services/contracts/src/events/index.ts"));
    expect(mapped("@earshot/mention/filters")).toBe(join(root, "services/mention/src/filters.ts"));
  });
});
