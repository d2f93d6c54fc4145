import type { IncomingMessage, ServerResponse } from "node:http";
import type { SimWorld } from "./world";

// What each platform's simulator gives the shared server: the path prefixes it answers under (a base URL
// of the platform, as DESIGN.md's EARSHOT_*_URL settings name them) and a handler for requests under them.

export type SimPlatform = "x" | "reddit" | "youtube" | "linkedin";

export const SIM_PLATFORMS: readonly SimPlatform[] = ["x", "reddit", "youtube", "linkedin"];

export interface SimRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** The request URL with the prefix still on it. */
  url: URL;
  /** The path after the prefix: `/2/tweets/search/recent`. */
  path: string;
  /** The raw body (empty for GET). */
  body: string;
}

export interface PlatformSimulator {
  platform: SimPlatform;
  /** Prefix -> which base URL it stands for. */
  prefixes: Record<string, string>;
  handle(request: SimRequest, prefix: string): Promise<void> | void;
}

export type PlatformSimulatorFactory = (world: SimWorld) => PlatformSimulator;
