export { runCli } from "./commands";
