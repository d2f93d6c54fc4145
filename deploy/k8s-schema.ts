// Validates rendered Kubernetes objects against the API's OpenAPI schemas, offline: the validators come
// compiled from the Kubernetes OpenAPI document in the npm packages `kubernetes-models` (the core API
// groups), and from the projects' own CRD schemas in `@kubernetes-models/prometheus-operator` (ServiceMonitor,
// PodMonitor) and `@kubernetes-models/cert-manager` (Certificate, Issuer). An object of a kind none of them
// knows is an error, so nothing the chart or the base renders goes unchecked.
//
// What these schemas check: types, required fields, enums and formats (a port that is a string where an
// integer is due, a probe without a handler's fields, a missing container name). What they do not: unknown
// fields (the Kubernetes schemas leave additionalProperties open; the API server prunes or refuses them).

export interface K8sObjectLike {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown };
}

interface ModelClass {
  new (data: unknown): { validate(): void };
}

/** The package module holding the model of apiVersion/kind, or undefined for an API group neither ships. */
const modulePathOf = (apiVersion: string, kind: string): string | undefined => {
  if (!/^[A-Za-z0-9.-]+(\/v[0-9a-z]+)?$/.test(apiVersion) || !/^[A-Z][A-Za-z0-9]*$/.test(kind)) return undefined;
  if (apiVersion.startsWith("monitoring.coreos.com/")) return `@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`;
  if (apiVersion.startsWith("cert-manager.io/")) return `@kubernetes-models/cert-manager/${apiVersion}/${kind}`;
  return `kubernetes-models/${apiVersion}/${kind}`;
};

const loadModel = (apiVersion: string, kind: string): ModelClass | undefined => {
  const path = modulePathOf(apiVersion, kind);
  if (!path) return undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require(path) as Record<string, ModelClass | undefined>)[kind];
  } catch {
    return undefined;
  }
};

interface AjvError {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** The schema errors of one object ("Deployment/r1-gateway: /spec/replicas must be integer"); none when valid. */
export const schemaErrors = (object: K8sObjectLike): string[] => {
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  const kind = typeof object.kind === "string" ? object.kind : "";
  const where = `${kind || "?"}/${typeof object.metadata?.name === "string" ? object.metadata.name : "?"}`;
  const Model = loadModel(apiVersion, kind);
  if (!Model) return [`${where}: no schema for ${apiVersion || "(no apiVersion)"} ${kind || "(no kind)"}`];
  try {
    new Model(object).validate();
    return [];
  } catch (err) {
    const errors = (err as { errors?: AjvError[] }).errors;
    if (!Array.isArray(errors)) return [`${where}: ${(err as Error).message}`];
    return errors.map((e) => `${where}: ${e.instancePath || "/"} ${e.message ?? "is invalid"}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);
  }
};

/** Every schema error of every object, in order. */
export const validateObjects = (objects: readonly K8sObjectLike[]): string[] => objects.flatMap(schemaErrors);
