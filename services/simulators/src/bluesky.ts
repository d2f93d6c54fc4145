import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import WebSocket, { WebSocketServer } from "ws";
import { sendJson } from "./http";
import type { PlatformSimulator } from "./platform-simulator";
import { SIM_PREFIXES } from "./settings";
import type { SimPost, SimWorld } from "./world";

// Bluesky as Earshot reads it, both without an account:
// - Jetstream (`<jetstream>/subscribe?wantedCollections=app.bsky.feed.post&cursor=T`), a WebSocket of JSON
//   frames in time_us order: the world's Bluesky posts at or after the cursor first, then each post as it is
//   published. With `streamEveryMs` (make run), a post about one of the terms searched on the other
//   simulated platforms is published that often, as the firehose would carry some.
// - the public AppView's `GET /xrpc/app.bsky.actor.getProfiles?actors=<did>&actors=…` (at most 25), which
//   names the authors the frames give by DID.

const POST_COLLECTION = "app.bsky.feed.post";
const MAX_ACTORS = 25;

const hash = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h >>> 0;
};

/** A stable DID for a world author (did:plc identifiers are 24 base32 characters). */
export const didOf = (handle: string): string => `did:plc:sim${hash(handle).toString(32).padStart(7, "0")}${hash(`${handle}!`).toString(32).padStart(7, "0")}`;
/** The handle a simulated author has on Bluesky. */
const handleOf = (handle: string): string => `${handle.toLowerCase().replace(/[^a-z0-9-]/g, "-")}.bsky.social`;
const rkeyOf = (p: SimPost): string => `3k${p.key.toString(32)}`;
/** Microseconds, unique per post: its millisecond and the low bits of its key. */
const timeUsOf = (p: SimPost): number => p.createdAtMs * 1000 + Number(p.key & 0x3ffn);

export const jetstreamFrameOf = (p: SimPost) => ({
  did: didOf(p.author.handle),
  time_us: timeUsOf(p),
  kind: "commit",
  commit: {
    rev: `rev${p.key.toString(32)}`,
    operation: "create",
    collection: POST_COLLECTION,
    rkey: rkeyOf(p),
    cid: `bafysim${p.key.toString(32)}`,
    record: { $type: POST_COLLECTION, text: p.text, createdAt: new Date(p.createdAtMs).toISOString(), langs: [p.lang] },
  },
});

/** The Bluesky simulator, with what a test waits on: a subscriber connected. */
export interface BlueskySimulator extends PlatformSimulator {
  /** Resolves once `n` subscriptions in all have been opened. */
  subscribed(n: number): Promise<void>;
}

export const blueskySimulator = (world: SimWorld): BlueskySimulator => {
  const sockets = new Set<WebSocket>();
  let opened = 0;
  let waiters: Array<{ n: number; resolve: () => void }> = [];
  const wss = new WebSocketServer({ noServer: true });
  const authors = new Map<string, SimPost["author"]>();
  const remember = (p: SimPost) => authors.set(didOf(p.author.handle), p.author);
  const unsubscribe = world.onPublish("bluesky", (post) => {
    remember(post);
    const frame = JSON.stringify(jetstreamFrameOf(post));
    for (const socket of sockets) socket.send(frame);
  });
  let turn = 0;
  const generator = world.streamEveryMs
    ? setInterval(() => {
        const terms = world.searchedTerms();
        if (terms.length === 0) return;
        const term = terms[turn++ % terms.length]!;
        world.publish("bluesky", { text: `Just tried ${term} for the first time, and honestly it is better than I expected.`, author: { handle: `sim_bsky_${turn % 17}` } });
      }, world.streamEveryMs)
    : undefined;
  generator?.unref();

  return {
    platform: "bluesky",
    prefixes: { [SIM_PREFIXES.blueskyJetstream]: "blueskyJetstream", [SIM_PREFIXES.blueskyPublicApi]: "blueskyPublicApi" },
    upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer, path: string) => {
      if (path !== "/subscribe") return void socket.destroy();
      wss.handleUpgrade(req, socket, head, (ws) => {
        const q = new URL(req.url ?? "/", "ws://simulator.local").searchParams;
        const wanted = q.getAll("wantedCollections");
        if (wanted.length > 0 && !wanted.includes(POST_COLLECTION)) return void ws.close();
        const cursor = Number(q.get("cursor") ?? Number.NaN);
        // What was published at or after the cursor first, oldest first, then live.
        for (const p of world.posts("bluesky").reverse()) {
          remember(p);
          if (!Number.isFinite(cursor) || timeUsOf(p) >= cursor) ws.send(JSON.stringify(jetstreamFrameOf(p)));
        }
        sockets.add(ws);
        ws.on("close", () => sockets.delete(ws));
        opened += 1;
        waiters = waiters.filter((w) => (opened >= w.n ? (w.resolve(), false) : true));
      });
    },
    handle: ({ req, res, path, url }) => {
      if (req.method !== "GET") return sendJson(res, 405, { error: "MethodNotAllowed" });
      if (path !== "/xrpc/app.bsky.actor.getProfiles") return sendJson(res, 404, { error: "MethodNotImplemented", message: "Method Not Implemented" });
      const actors = url.searchParams.getAll("actors");
      if (actors.length === 0 || actors.length > MAX_ACTORS) return sendJson(res, 400, { error: "InvalidRequest", message: `actors must hold 1 to ${MAX_ACTORS} identifiers` });
      const profiles = actors.flatMap((did) => {
        const author = authors.get(did);
        return author ? [{ did, handle: handleOf(author.handle), displayName: author.name }] : [];
      });
      return sendJson(res, 200, { profiles });
    },
    subscribed: (n) => (opened >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    close: () => {
      clearInterval(generator);
      unsubscribe();
      for (const socket of sockets) socket.terminate();
      wss.close();
    },
  };
};
