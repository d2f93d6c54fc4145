export { runCli, parseDuration, EXIT_OK, EXIT_FAILED, EXIT_USAGE, type Io } from "./commands";
export { resolveAccountAddress, resolveServiceAddress, UsageError, type CliService, type Env } from "./config";
export { importPosts, postFromLine, type ImportTotals } from "./posts-import";
