import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { SimWorld } from "./world";

// What each platform's simulator gives the shared server: the path prefixes it answers under (a base URL
// of the platform, as DESIGN.md's EARSHOT_*_URL settings name them) and a handler for requests under them.

export type SimPlatform = "x" | "reddit" | "youtube" | "linkedin" | "hackernews" | "bluesky" | "github";

/** The platforms that need credentials: without them Earshot cannot read the real ones. */
export const CREDENTIALED_PLATFORMS: readonly SimPlatform[] = ["x", "reddit", "youtube", "linkedin"];
/** The platforms Earshot reads without credentials: simulated only when asked (no internet, demos, tests). */
export const FREE_PLATFORMS: readonly SimPlatform[] = ["hackernews", "bluesky", "github"];
export const SIM_PLATFORMS: readonly SimPlatform[] = [...CREDENTIALED_PLATFORMS, ...FREE_PLATFORMS];

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
  /** A WebSocket upgrade under one of its prefixes (Bluesky's Jetstream); refused when absent. */
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer, path: string): void;
  /** Ends what it runs beside requests (open WebSockets, timers). */
  close?(): void;
}

export type PlatformSimulatorFactory = (world: SimWorld) => PlatformSimulator;
