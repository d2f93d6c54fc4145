import { edgeSettingsShape } from "@earshot/edge";
import { integrationSettingsShape } from "@earshot/integration";
import { baseConfigShape, configPort, loadConfig } from "@earshot/platform";
import { z } from "zod";

export const allInOneConfigSchema = z.object({
  ...baseConfigShape,
  ...edgeSettingsShape,
  ...integrationSettingsShape,
  /** Where the HTTP API listens. Loopback by default: set HOST=0.0.0.0 to serve other machines (or a container's port). */
  HOST: z.string().default("127.0.0.1"),
  PORT: configPort.default(8080),
  /** First loopback gRPC port; each service takes the next one. 0 = any free ports. */
  EARSHOT_GRPC_BASE_PORT: configPort.default(0),
  /** `auto`: platforms without credentials are served by local simulators (make run); `off`: they are not polled. */
  EARSHOT_SIMULATORS: z.enum(["auto", "off"]).default("auto"),
  /** Loopback port of the simulators (0 = any free port). */
  EARSHOT_SIMULATOR_PORT: configPort.default(0),
});

export type AllInOneConfig = z.infer<typeof allInOneConfigSchema>;

export const loadAllInOneConfig = (env?: Record<string, string | undefined>): AllInOneConfig => loadConfig(allInOneConfigSchema, env);
