import { connect } from "node:net";

// Requests that fetch would refuse to send or would tidy up (a broken %-escape, a Content-Encoding that
// lies, a short body), written byte for byte on a socket.

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export const rawRequest = (baseUrl: string, r: RawRequest): Promise<RawResponse> => {
  const { hostname, port } = new URL(baseUrl);
  const body = r.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body);
  const head = [
    `${r.method} ${r.path} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    "Connection: close",
    ...Object.entries(r.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    ...(r.body !== undefined ? [`Content-Length: ${body.length}`] : []),
    "",
    "",
  ].join("\r\n");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname === "localhost" ? "127.0.0.1" : hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      const [statusLine = "", ...headerLines] = text.slice(0, split).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const i = line.indexOf(":");
        headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      let rest = text.slice(split + 4);
      if (headers["transfer-encoding"] === "chunked") {
        let out = "";
        while (rest.length > 0) {
          const eol = rest.indexOf("\r\n");
          const size = parseInt(rest.slice(0, eol), 16);
          if (!size) break;
          out += rest.slice(eol + 2, eol + 2 + size);
          rest = rest.slice(eol + 2 + size + 2);
        }
        rest = out;
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: rest });
    });
    // No half-close: the server closes after its answer (Connection: close).
    socket.write(Buffer.concat([Buffer.from(head), body]));
  });
};
