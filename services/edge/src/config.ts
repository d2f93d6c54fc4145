import { baseConfigShape, configPort, loadConfig } from "@earshot/platform";
import { z } from "zod";

const grpcAddress = z.string().regex(/^[A-Za-z0-9.\-_[\]:]+:\d{1,5}$/, "must be host:port");

export const gatewayConfigSchema = z.object({
  ...baseConfigShape,
  HOST: z.string().default("0.0.0.0"),
  PORT: configPort.default(8080),
  /** The origin clients use, e.g. https://earshot.example.com; defaults to http://localhost:<PORT>. */
  EARSHOT_PUBLIC_URL: z.string().url().optional(),
  ACCOUNT_GRPC_ADDR: grpcAddress.default("account:50051"),
  PROJECT_GRPC_ADDR: grpcAddress.default("project:50051"),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const loadGatewayConfig = (): GatewayConfig => loadConfig(gatewayConfigSchema);
