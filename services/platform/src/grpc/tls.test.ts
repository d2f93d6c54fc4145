import { readFileSync } from "node:fs";
import { join } from "node:path";
import { baseConfigSchema, ConfigError, loadConfig } from "../config";
import { silentLogger } from "../logger";
import { ECHO_METHOD_PATH, EchoClient, echoService } from "../testing/echo-service";
import { makeTestPki as makePki, testTls as tlsOf } from "../testing/pki";
import { makeTempDir } from "../testing/tmp";
import { createGrpcClient } from "./client";
import { startGrpcServer, type StartedGrpcServer } from "./server";
import { grpcTlsFromSettings } from "./tls";

// Mutual TLS over a real loopback hop, with a CA and certificates made for the test by openssl.

describe("mutual TLS between Earshot's processes", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let server: StartedGrpcServer;
  beforeAll(async () => {
    tmp = await makeTempDir("earshot-mtls-");
    makePki(tmp.dir, "ca", ["account", "gateway"]);
    makePki(tmp.dir, "other-ca", ["intruder"]);
    server = await startGrpcServer({ host: "127.0.0.1", port: 0, logger: silentLogger(), services: [echoService], tls: tlsOf(tmp.dir, "ca", "account") });
  });
  afterAll(async () => {
    await server.drain(100);
    await tmp.cleanup();
  });

  const call = async (options: Parameters<typeof createGrpcClient>[2]) => {
    const { client, close } = createGrpcClient(EchoClient, server.address, { ...options, deadlineMs: 3000, readAttempts: 1 });
    try {
      return await client.echo({ value: "over tls" });
    } finally {
      close();
    }
  };

  it("serves a client presenting a certificate the CA signed, checking the server's", async () => {
    await expect(call({ tls: tlsOf(tmp.dir, "ca", "gateway") })).resolves.toEqual({ value: "over tls" });
    expect(ECHO_METHOD_PATH).toBe("/test.v1.EchoService/Echo");
  });

  it("refuses a plaintext client", async () => {
    await expect(call({})).rejects.toMatchObject({ code: "unavailable" });
  });

  it("refuses a client whose certificate another CA signed", async () => {
    await expect(call({ tls: { ...tlsOf(tmp.dir, "other-ca", "intruder"), ca: readFileSync(join(tmp.dir, "ca.crt")) } })).rejects.toMatchObject({ code: "unavailable" });
  });

  it("is read from EARSHOT_GRPC_TLS_* and refused at start unless all three files are set", () => {
    const config = loadConfig(baseConfigSchema, {
      EARSHOT_GRPC_TLS_CA_FILE: join(tmp.dir, "ca.crt"),
      EARSHOT_GRPC_TLS_CERT_FILE: join(tmp.dir, "gateway.crt"),
      EARSHOT_GRPC_TLS_KEY_FILE: join(tmp.dir, "gateway.key"),
    });
    expect(grpcTlsFromSettings(config)?.cert.toString()).toContain("BEGIN CERTIFICATE");
    expect(grpcTlsFromSettings(loadConfig(baseConfigSchema, {}))).toBeUndefined();
    expect(() => loadConfig(baseConfigSchema, { EARSHOT_GRPC_TLS_CA_FILE: join(tmp.dir, "ca.crt") })).toThrow(ConfigError);
    try {
      loadConfig(baseConfigSchema, { EARSHOT_GRPC_TLS_CA_FILE: join(tmp.dir, "ca.crt") });
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([
        "EARSHOT_GRPC_TLS_CERT_FILE: is required with EARSHOT_GRPC_TLS_CA_FILE (mutual TLS needs the CA, a certificate and its key)",
        "EARSHOT_GRPC_TLS_KEY_FILE: is required with EARSHOT_GRPC_TLS_CA_FILE (mutual TLS needs the CA, a certificate and its key)",
      ]);
    }
  });
});
