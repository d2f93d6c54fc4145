import { createServer as createPlainServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import { generate } from "selfsigned";

// A real HTTPS webhook receiver for tests: a certificate for localhost and 127.0.0.1 signed by a CA made
// for the test (what a sender must be told to trust, as NODE_EXTRA_CA_CERTS or EARSHOT_WEBHOOK_CA_FILE
// would), the requests it got, and an answer the test chooses per request. `plainHttp` makes it a plain
// http receiver on 127.0.0.1 instead, as a developer runs one where private networks are allowed.

export interface Received {
  /** The request's path (and query): which endpoint it was sent to. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When the whole request had arrived (ms since the epoch): a test of pacing reads the gaps. */
  at: number;
}

/** How the receiver answers: a status (and body, and headers), or `hang` to never answer (a timeout). */
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | "hang";

export interface Receiver {
  url: string;
  port: number;
  /** The CA that signed the receiver's certificate (PEM). */
  ca: string;
  received: Received[];
  /** The answer to the next requests (default 200). */
  answer(next: Answer | ((r: Received) => Answer)): void;
  /** Resolves once `count` requests have arrived. */
  waitFor(count: number): Promise<Received[]>;
  close(): Promise<void>;
}

let certificates: Promise<{ ca: string; key: string; cert: string }> | undefined;

/** One CA and certificate per test file: RSA key generation is slow. */
const testCertificates = () =>
  (certificates ??= (async () => {
    const ca = await generate([{ name: "commonName", value: "Earshot test CA" }], {
      keySize: 2048,
      algorithm: "sha256",
      extensions: [
        { name: "basicConstraints", cA: true, critical: true },
        { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      ],
    });
    const leaf = await generate([{ name: "commonName", value: "localhost" }], {
      keySize: 2048,
      algorithm: "sha256",
      ca: { key: ca.private, cert: ca.cert },
      extensions: [
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
        { name: "extKeyUsage", serverAuth: true },
        { name: "subjectAltName", altNames: [{ type: 2, value: "localhost" }, { type: 7, ip: "127.0.0.1" }] },
      ],
    });
    return { ca: ca.cert, key: leaf.private, cert: leaf.cert };
  })());

export const startReceiver = async (options: { plainHttp?: boolean } = {}): Promise<Receiver> => {
  const { ca, key, cert } = await testCertificates();
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  let answerOf: (r: Received) => Answer = () => ({ status: 200, body: "ok" });
  const waiters: Array<{ count: number; resolve: (r: Received[]) => void }> = [];
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = { path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      received.push(r);
      for (const w of waiters.filter((x) => received.length >= x.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve([...received]);
      }
      const answer = answerOf(r);
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers }).end(answer.body ?? "");
    });
  };
  const server: Server | ReturnType<typeof createPlainServer> = options.plainHttp ? createPlainServer(handle) : createServer({ key, cert }, handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: options.plainHttp ? `http://127.0.0.1:${port}/hooks` : `https://localhost:${port}/hooks`,
    port,
    ca,
    received,
    answer: (next) => {
      answerOf = typeof next === "function" ? next : () => next;
    },
    waitFor: (count) => (received.length >= count ? Promise.resolve([...received]) : new Promise((resolve) => waiters.push({ count, resolve }))),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
