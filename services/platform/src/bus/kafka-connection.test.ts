import { baseConfigSchema, ConfigError, loadConfig } from "../config";
import { kafkaConnection } from "./kafka-connection";

// The mapping from KAFKA_SSL* / KAFKA_SASL_* to kafkajs's `ssl` and `sasl` options (no broker needed).

describe("the Kafka connection settings", () => {
  it("are plaintext without authentication by default", () => {
    expect(kafkaConnection(loadConfig(baseConfigSchema, {}))).toEqual({});
  });

  it("turn TLS on with the system CAs, or with the CA file given", () => {
    expect(kafkaConnection(loadConfig(baseConfigSchema, { KAFKA_SSL: "true" }))).toEqual({ ssl: true });
    const read = (path: string) => Buffer.from(`pem of ${path}`);
    expect(kafkaConnection(loadConfig(baseConfigSchema, { KAFKA_SSL_CA_FILE: "/etc/kafka/ca.crt" }), read)).toEqual({
      ssl: { ca: [Buffer.from("pem of /etc/kafka/ca.crt")], rejectUnauthorized: true },
    });
  });

  it.each(["plain", "scram-sha-256", "scram-sha-512"] as const)("authenticate with SASL %s, the password from a file like any secret", (mechanism) => {
    const config = loadConfig(baseConfigSchema, { KAFKA_SSL: "true", KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: "earshot", KAFKA_SASL_PASSWORD: "s3cret" });
    expect(kafkaConnection(config)).toEqual({ ssl: true, sasl: { mechanism, username: "earshot", password: "s3cret" } });
  });

  it("refuse SASL without its username and password, and an unknown mechanism, naming them", () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(baseConfigSchema, env);
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };
    expect(problems({ KAFKA_SASL_MECHANISM: "plain" })).toEqual([
      "KAFKA_SASL_USERNAME: is required with KAFKA_SASL_MECHANISM=plain",
      "KAFKA_SASL_PASSWORD: is required with KAFKA_SASL_MECHANISM=plain",
    ]);
    expect(problems({ KAFKA_SASL_MECHANISM: "kerberos" })[0]).toMatch(/^KAFKA_SASL_MECHANISM: /);
    expect(problems({ KAFKA_SSL: "yes" })[0]).toMatch(/^KAFKA_SSL: /);
  });
});
