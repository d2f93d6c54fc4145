import { makeGenericClientConstructor, type ServiceError } from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import { type GrpcTls, grpcChannelCredentials, grpcTlsChannelOptions } from "./tls";

// grpc-health-check ships no typed client; this is the standard grpc.health.v1.Health/Check call.
const HealthClient = makeGenericClientConstructor(healthService, "Health");

type CheckFn = (
  req: { service: string },
  opts: { deadline: number; waitForReady: boolean },
  cb: (err: ServiceError | null, res?: { status: string | number }) => void,
) => void;

export type HealthState = "SERVING" | "NOT_SERVING" | "UNKNOWN" | "SERVICE_UNKNOWN" | "UNREACHABLE";

export interface HealthChecker {
  /** `timeoutMs`: the longest the check may take, connecting included (5 s by default). */
  check(service?: string, timeoutMs?: number): Promise<HealthState>;
  close(): void;
}

const STATES: Record<number, HealthState> = { 0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN" };

/** `tls`: the certificate to present when the services require mutual TLS. */
export const createHealthChecker = (address: string, tls?: GrpcTls): HealthChecker => {
  const client = new HealthClient(address, grpcChannelCredentials(tls), grpcTlsChannelOptions(tls));
  return {
    check: (service = "", timeoutMs = 5000) =>
      new Promise((resolve) => {
        const check = (client as unknown as Record<string, CheckFn>)["Check"] as CheckFn;
        // waitForReady: a channel still connecting (or reconnecting) is waited for within the deadline,
        // rather than the check failing at once while the first connection is being made.
        check.call(client, { service }, { deadline: Date.now() + timeoutMs, waitForReady: true }, (err, res) => {
          if (err) return resolve(err.code === 5 ? "SERVICE_UNKNOWN" : "UNREACHABLE");
          const s = res?.status;
          resolve(typeof s === "number" ? (STATES[s] ?? "UNKNOWN") : ((s as HealthState | undefined) ?? "UNKNOWN"));
        });
      }),
    close: () => client.close(),
  };
};
