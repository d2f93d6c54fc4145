import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { DeclaredSetting } from "@earshot/platform";
import { packageDir } from "../names";
import { deployables, EDGE_PACKAGE, SERVICES, type ServiceEntry } from "../services";
import { CHART_DIR, renderChartConfigMap, renderChartGrpcCertificate, renderChartSecret, renderChartTemplate, renderValues, renderValuesSchema } from "./chart";
import { K8S_DIR, renderK8sConfigMap, renderK8sDefaultDeny, renderK8sDeployable, renderK8sIngress, renderK8sNamespace, renderK8sSecret, renderKustomization } from "./k8s";
import { declaredServiceSettings } from "./settings";
import { packageJsonText, renderAllInOneTsconfig, renderRootTsconfig, renderTestTsconfig, TEST_TSCONFIG, withDeployables, withServiceDependencies } from "./workspace";

// Every file derived from the registry (and from what its services' modules declare), with the content
// it must have. `npm run sync-services` writes them; derived-files.test.ts fails while a checked-in one
// differs.

export interface DerivedFile {
  /** Relative to the repository root. */
  path: string;
  content: string;
}

const readJson = async (root: string, path: string) => JSON.parse(await readFile(join(root, path), "utf8")) as Record<string, unknown>;

export const derivedFiles = async (
  root: string,
  services: readonly ServiceEntry[] = SERVICES,
  settings: readonly DeclaredSetting[] = declaredServiceSettings(services),
): Promise<DerivedFile[]> => {
  const ds = deployables(services);
  const allInOne = "services/all-in-one/package.json";
  const version = String((await readJson(root, allInOne)).version);
  const appVersion = /^appVersion:\s*"?([^"\n]+)"?\s*$/m.exec(await readFile(join(root, CHART_DIR, "Chart.yaml"), "utf8"))?.[1];
  if (!appVersion) throw new Error(`${CHART_DIR}/Chart.yaml has no appVersion`);
  const ports = new Map(ds.map((d) => [d.name, d.port]));
  const packages = [...new Set([...services.map((s) => s.module), EDGE_PACKAGE])];
  return [
    { path: "tsconfig.json", content: renderRootTsconfig(services) },
    { path: TEST_TSCONFIG, content: renderTestTsconfig(services) },
    { path: "services/all-in-one/tsconfig.json", content: renderAllInOneTsconfig(services) },
    { path: allInOne, content: packageJsonText(withServiceDependencies(await readJson(root, allInOne), services, version)) },
    ...(await Promise.all(
      packages.map(async (module) => {
        const path = `${packageDir(module)}/package.json`;
        return { path, content: packageJsonText(withDeployables(await readJson(root, path), module, ds)) };
      }),
    )),
    ...ds.map((d) => ({ path: `${K8S_DIR}/${d.name}.yaml`, content: renderK8sDeployable(d, ports) })),
    { path: `${K8S_DIR}/kustomization.yaml`, content: renderKustomization(ds, appVersion) },
    { path: `${K8S_DIR}/namespace.yaml`, content: renderK8sNamespace() },
    { path: `${K8S_DIR}/networkpolicy.yaml`, content: renderK8sDefaultDeny() },
    { path: `${K8S_DIR}/ingress.yaml`, content: renderK8sIngress(ds) },
    { path: `${K8S_DIR}/configmap.yaml`, content: renderK8sConfigMap(ds) },
    { path: `${K8S_DIR}/secret.yaml`, content: renderK8sSecret(settings) },
    ...ds.map((d) => ({ path: `${CHART_DIR}/templates/${d.name}.yaml`, content: renderChartTemplate(d) })),
    { path: `${CHART_DIR}/templates/configmap.yaml`, content: renderChartConfigMap(ds) },
    { path: `${CHART_DIR}/templates/secret.yaml`, content: renderChartSecret(settings) },
    { path: `${CHART_DIR}/templates/grpc-certificate.yaml`, content: renderChartGrpcCertificate(ds) },
    { path: `${CHART_DIR}/values.yaml`, content: renderValues(ds, settings) },
    { path: `${CHART_DIR}/values.schema.json`, content: renderValuesSchema(ds, settings) },
  ];
};

/** Files in the derived directories that no deployable accounts for (a removed service's manifest). */
export const HAND_WRITTEN = [
  `${CHART_DIR}/templates/_helpers.tpl`,
  `${CHART_DIR}/templates/ingress.yaml`,
  `${CHART_DIR}/templates/networkpolicy-default.yaml`,
  `${CHART_DIR}/templates/NOTES.txt`,
  `${CHART_DIR}/templates/podmonitor.yaml`,
  `${CHART_DIR}/templates/setup-job.yaml`,
  `${CHART_DIR}/templates/tests`,
];

