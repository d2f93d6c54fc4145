import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import Ajv from "ajv";
import yaml from "js-yaml";
import { grpcAddrVar } from "../names";
import { deployables, SERVICES, type ServiceEntry } from "../services";
import { CHART_DIR, renderChartConfigMap, renderChartTemplate, renderValues, renderValuesSchema } from "./chart";
import { derivedFiles, HAND_WRITTEN } from "./derived-files";
import { K8S_DIR, renderK8sConfigMap, renderK8sDeployable, renderKustomization } from "./k8s";
import { renderAllInOneTsconfig, renderRootTsconfig, TEST_SOURCES, withDeployables, withServiceDependencies } from "./workspace";

const root = resolve(__dirname, "../../../..");

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
    expect(excludes).toEqual(packages.map((dir) => [dir, TEST_SOURCES]));
  });

  it("a new registry entry gets its references, dependency, deployable, manifest, chart template, values, schema and address", () => {
    const alert: ServiceEntry = { name: "alert", protoPackage: "earshot.alert.v1", client: SERVICES[0].client, module: "@earshot/alert" };
    const services = [...SERVICES, alert];
    const ds = deployables(services);
    const added = ds.find((d) => d.name === "alert")!;
    expect(added).toMatchObject({ protocol: "grpc", port: 50051, entry: "dist/main.js", module: "@earshot/alert" });

    const rootRefs = (JSON.parse(renderRootTsconfig(services)) as { references: Array<{ path: string }> }).references.map((r) => r.path);
    expect(rootRefs).toContain("services/alert");
    // A service builds after the libraries it uses and before the applications that host or call it.
    expect(rootRefs.indexOf("services/alert")).toBeGreaterThan(rootRefs.indexOf("services/registry"));
    expect(rootRefs.indexOf("services/alert")).toBeLessThan(rootRefs.indexOf("services/all-in-one"));
    expect(renderAllInOneTsconfig(services)).toContain('{ "path": "../alert" }');
    expect(withServiceDependencies({ dependencies: { zod: "4" } }, services, "0.1.0").dependencies).toMatchObject({ "@earshot/alert": "0.1.0", zod: "4" });
    expect(withDeployables({ name: "@earshot/alert" }, "@earshot/alert", ds).earshot).toEqual({
      deployables: [{ name: "alert", entry: "dist/main.js", protocol: "grpc", port: 50051 }],
    });

    const manifest = yaml.loadAll(renderK8sDeployable(added)) as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(manifest.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual(["Deployment/alert", "Service/alert"]);
    expect(manifest[0]!.spec.template.spec.containers[0].args).toEqual(["alert"]);
    expect((yaml.load(renderKustomization(ds)) as { resources: string[] }).resources).toContain("alert.yaml");
    expect((yaml.load(renderK8sConfigMap(ds)) as { data: Record<string, string> }).data[grpcAddrVar("alert")]).toBe("alert:50051");

    expect(renderChartTemplate(added)).toContain('(dict "root" $ "name" "alert" "values" .Values.alert "protocol" "grpc")');
    expect(renderChartConfigMap(ds)).toContain('ALERT_GRPC_ADDR: {{ printf "alert:%v" .Values.alert.port | quote }}');
    const values = yaml.load(renderValues(ds)) as Record<string, unknown>;
    expect(values.alert).toMatchObject({ enabled: true, port: 50051 });
    const validate = new Ajv({ strict: true, allowUnionTypes: true }).compile(JSON.parse(renderValuesSchema(ds)));
    expect(validate(values)).toBe(true);
    const { alert: _dropped, ...withoutBlock } = values;
    expect(validate(withoutBlock)).toBe(false);
  });
});

describe("the service registry", () => {
  it("names each service once, with a client of its own protobuf package and a workspace package of its name", () => {
    const names = SERVICES.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    expect(new Set(deployables().map((d) => d.name)).size).toBe(deployables().length);
    for (const s of SERVICES) {
      expect(s.name).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(s.protoPackage).toBe(`earshot.${s.name.replace(/-/g, "_")}.v1`);
      expect((s.client as unknown as { serviceName: string }).serviceName.startsWith(`${s.protoPackage}.`)).toBe(true);
      expect(existsSync(join(root, "proto", ...s.protoPackage.split(".")))).toBe(true);
      expect(s.module).toBe(`@earshot/${s.name}`);
    }
  });

  it("every registered package resolves, under jest as under node, to its own sources", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mapper = Object.entries((require(join(root, "jest.config.js")) as { moduleNameMapper: Record<string, string> }).moduleNameMapper);
    for (const s of SERVICES) {
      const mapped = mapper.find(([pattern]) => new RegExp(pattern).test(s.module));
      expect(mapped).toBeDefined();
      const target = s.module.replace(new RegExp(mapped![0]), mapped![1]).replace("<rootDir>", root);
      expect(target).toBe(join(root, "services", s.name, "src", "index.ts"));
      expect(existsSync(target)).toBe(true);
      expect(JSON.parse(readFileSync(join(root, "services", s.name, "package.json"), "utf8")).name).toBe(s.module);
    }
  });
});
