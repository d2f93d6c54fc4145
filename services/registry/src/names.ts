// Names derived from a service's or deployable's short name, in one place so every derived file agrees.

/** `mcp-gateway` → `MCP_GATEWAY_GRPC_ADDR`: the setting holding a gRPC service's address. */
export const grpcAddrVar = (name: string): string => `${name.toUpperCase().replace(/-/g, "_")}_GRPC_ADDR`;

/** `mcp-gateway` → `mcpGateway`: the key of its block in the chart's values. */
export const camelName = (name: string): string => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/** The export of a service package holding its ServiceModule: `account` → `accountService`. */
export const moduleExportName = (name: string): string => `${camelName(name)}Service`;

/** `@earshot/account` → `services/account`: where a workspace package lives. */
export const packageDir = (module: string): string => {
  const m = /^@earshot\/([a-z][a-z0-9-]*)$/.exec(module);
  if (!m) throw new Error(`${module} is not an @earshot/<dir> workspace package`);
  return `services/${m[1]}`;
};

/** `EARSHOT_ENCRYPTION_KEY` → `encryptionKey`: the chart value of a setting a deployment must give. */
export const settingValuesKey = (setting: string): string =>
  setting.replace(/^EARSHOT_/, "").toLowerCase().replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
