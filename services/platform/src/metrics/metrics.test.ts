import { type GrpcServiceConfig, loadConfig } from "../config";
import { createGrpcClient } from "../grpc/client";
import { silentLogger } from "../logger";
import { serviceMainConfigSchema, type ServiceModule, startServiceMain } from "../service-host";
import { ECHO_METHOD_PATH, EchoClient, echoService } from "../testing/echo-service";
import { makeTempDir } from "../testing/tmp";

const echoModule: ServiceModule = { name: "echo", open: async () => ({ grpc: [echoService] }) };

const counterValue = (text: string, method: string, code: string): number => {
  const line = text.split("\n").find((l) => l.startsWith(`earshot_grpc_server_handled_total{method="${method}",code="${code}"}`));
  return line ? Number(line.split(" ").pop()) : 0;
};

/** The echo service as its own deployable would run it: gRPC and the metrics port, both on free ports. */
const startEcho = async () => {
  const tmp = await makeTempDir("earshot-metrics-");
  const config = loadConfig(serviceMainConfigSchema(echoModule), {
    EARSHOT_DATA_DIR: tmp.dir,
    EARSHOT_STORE_SYNC: "normal",
    GRPC_HOST: "127.0.0.1",
    GRPC_PORT: "0",
    EARSHOT_METRICS_PORT: "0",
    LOG_LEVEL: "silent",
  }) as GrpcServiceConfig;
  return { tmp, started: await startServiceMain(echoModule, config, silentLogger()) };
};

describe("a gRPC service's metrics port", () => {
  it("counts and times every answered call by method and status code, beside the process metrics, over a real gRPC hop", async () => {
    const { tmp, started } = await startEcho();
    const { client, close } = createGrpcClient(EchoClient, started.hosted.address);
    const scrape = async () => (await fetch(`${started.metricsUrl}/metrics`)).text();
    try {
      expect(counterValue(await scrape(), ECHO_METHOD_PATH, "OK")).toBe(0);
      await expect(client.echo({ value: "hello" })).resolves.toEqual({ value: "hello" });
      await expect(client.echo({ value: "again" })).resolves.toEqual({ value: "again" });
      await expect(client.echo({ value: "missing" })).rejects.toMatchObject({ code: "not_found" });

      const text = await scrape();
      expect(counterValue(text, ECHO_METHOD_PATH, "OK")).toBe(2);
      expect(counterValue(text, ECHO_METHOD_PATH, "NOT_FOUND")).toBe(1);
      expect(text).toContain(`earshot_grpc_server_handling_seconds_count{method="${ECHO_METHOD_PATH}",code="OK"} 2`);
      expect(text).toContain("process_cpu_user_seconds_total");
      expect(text).toContain("nodejs_eventloop_lag_seconds");
      // Nothing else is served there but the probes.
      expect((await fetch(`${started.metricsUrl}/debug`)).status).toBe(404);
    } finally {
      close();
      await started.stop();
      await tmp.cleanup();
    }
  });

  it("answers the kubelet's probes in plain HTTP: /healthz while the process is up, /readyz while gRPC is serving and not draining", async () => {
    const { tmp, started } = await startEcho();
    const status = async (path: string) => (await fetch(`${started.metricsUrl}${path}`)).status;
    try {
      expect(await status("/healthz")).toBe(200);
      expect(await status("/readyz")).toBe(200);
      // SIGTERM's drain: the pod leaves the endpoints while it finishes what it has, and is still alive.
      await started.hosted.server.drain(1000);
      expect(await status("/readyz")).toBe(503);
      expect(await status("/healthz")).toBe(200);
    } finally {
      await started.stop();
      await tmp.cleanup();
    }
  });

  it("is not opened when EARSHOT_METRICS_PORT is unset", async () => {
    const tmp = await makeTempDir("earshot-metrics-");
    const config = loadConfig(serviceMainConfigSchema(echoModule), { EARSHOT_DATA_DIR: tmp.dir, GRPC_HOST: "127.0.0.1", GRPC_PORT: "0", LOG_LEVEL: "silent" }) as GrpcServiceConfig;
    const started = await startServiceMain(echoModule, config, silentLogger());
    try {
      expect(started.metricsUrl).toBeUndefined();
    } finally {
      await started.stop();
      await tmp.cleanup();
    }
  });
});
