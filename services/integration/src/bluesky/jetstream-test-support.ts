import { type AddressInfo } from "node:net";
import WebSocket, { WebSocketServer } from "ws";

// A fake Jetstream written from its README: frames in time_us order, `cursor` replays from that time_us
// (inclusive), `wantedCollections` filters commits, identity and account frames pass regardless.

export const T0_US = Date.parse("2026-11-28T12:00:00Z") * 1000;

export function postFrame(i: number, text = `post ${i} about earshot`): Record<string, unknown> {
  return {
    did: `did:plc:author${i % 7}`,
    time_us: T0_US + i * 1000,
    kind: "commit",
    commit: {
      rev: `rev${i}`,
      operation: "create",
      collection: "app.bsky.feed.post",
      rkey: `3k${String(i).padStart(8, "0")}`,
      record: { $type: "app.bsky.feed.post", text, createdAt: new Date(Math.floor((T0_US + i * 1000) / 1000)).toISOString(), langs: ["en"] },
      cid: `bafy${i}`,
    },
  };
}

export function identityFrame(i: number): Record<string, unknown> {
  return { did: `did:plc:author${i}`, time_us: T0_US + i * 1000, kind: "identity", identity: { did: `did:plc:author${i}`, handle: `a${i}.bsky.social`, seq: i, time: "2026-11-28T12:00:00Z" } };
}

export interface FakeJetstream {
  url: string;
  /** Each connection's query, in order. */
  connections: URLSearchParams[];
  /** Appends frames to the log and sends them to every open connection. */
  publish(frames: Record<string, unknown>[]): void;
  /** Drops every open connection without a close handshake. */
  dropAll(): void;
  close(): Promise<void>;
}

export async function startFakeJetstream(initial: Record<string, unknown>[] = []): Promise<FakeJetstream> {
  const log = [...initial];
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const connections: URLSearchParams[] = [];
  const open = new Set<WebSocket>();
  const wanted = (q: URLSearchParams, f: Record<string, unknown>): boolean => {
    const collections = q.getAll("wantedCollections");
    const commit = f.commit as { collection?: string } | undefined;
    return f.kind !== "commit" || collections.length === 0 || collections.includes(commit?.collection ?? "");
  };
  const queries = new Map<WebSocket, URLSearchParams>();
  server.on("connection", (socket, req) => {
    const q = new URL(req.url ?? "/", "ws://x").searchParams;
    connections.push(q);
    queries.set(socket, q);
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    const cursor = q.get("cursor");
    for (const f of log) {
      if (cursor !== null && (f.time_us as number) < Number(cursor)) continue;
      if (wanted(q, f)) socket.send(JSON.stringify(f));
    }
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/subscribe`,
    connections,
    publish(frames) {
      log.push(...frames);
      for (const socket of open) for (const f of frames) if (wanted(queries.get(socket)!, f)) socket.send(JSON.stringify(f));
    },
    dropAll() {
      for (const socket of open) socket.terminate();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.terminate();
        server.close(() => resolve());
      }),
  };
}
