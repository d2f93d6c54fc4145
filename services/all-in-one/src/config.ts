import { edgeSettingsShape } from "@earshot/edge";
import { baseConfigShape, combineSettings, configPort, loadConfig } from "@earshot/platform";
import { serviceModules } from "@earshot/registry";
import { z } from "zod";

// The all-in-one's settings: the shared ones, the edge's, its own, and every hosted service's as its
// module declares them (a new service's settings arrive with its registry entry, not by an edit here).

const allInOneOwnShape = {
  /** Where the HTTP API listens. Loopback by default: set HOST=0.0.0.0 to serve other machines (or a container's port). */
  HOST: z.string().default("127.0.0.1"),
  PORT: configPort.default(8080),
  /** First loopback gRPC port; each service takes the next one. 0 = any free ports. */
  EARSHOT_GRPC_BASE_PORT: configPort.default(0),
  /**
   * `auto`: platforms without credentials are served by local simulators (make run) and Hacker News,
   * Bluesky and GitHub are read for real; `all`: those three are simulated too (no internet, demos, tests);
   * `off`: nothing is simulated (platforms without credentials are not polled).
   */
  EARSHOT_SIMULATORS: z.enum(["auto", "all", "off"]).default("auto"),
  /** Loopback port of the simulators (0 = any free port). */
  EARSHOT_SIMULATOR_PORT: configPort.default(0),
  /**
   * `on`: the gateway calls the services hosted beside it without a socket (same codec, checks, errors and
   * deadlines); `off`: over their loopback gRPC servers, as a gateway in another process would.
   */
  EARSHOT_IN_PROCESS_CALLS: z.enum(["on", "off"]).default("on"),
};

const typedSchema = z.object({ ...baseConfigShape, ...edgeSettingsShape, ...allInOneOwnShape });

/**
 * The shared, edge and all-in-one settings, typed; the services' own ride along untyped (each service
 * reads its own from the configuration it is handed).
 */
export type AllInOneConfig = z.infer<typeof typedSchema> & Readonly<Record<string, unknown>>;

export const allInOneConfigSchema = (): z.ZodType<AllInOneConfig> =>
  z.object(
    combineSettings([
      { owner: "platform", shape: baseConfigShape },
      { owner: "edge", shape: edgeSettingsShape },
      { owner: "all-in-one", shape: allInOneOwnShape },
      ...serviceModules().map((m) => ({ owner: m.name, shape: m.settings ?? {} })),
    ]),
  ) as unknown as z.ZodType<AllInOneConfig>;

export const loadAllInOneConfig = (env?: Record<string, string | undefined>): AllInOneConfig => loadConfig(allInOneConfigSchema(), env);
