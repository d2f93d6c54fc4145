import type { Writable } from "node:stream";

// The few parts of the tar format (ustar, regular files only) a backup archive needs, so that the archive
// is a plain .tar.gz any tar can list and unpack.

const BLOCK = 512;

const octal = (n: number, width: number): string => `${n.toString(8).padStart(width - 1, "0")}\0`;

export const tarHeader = (name: string, size: number, mtime: Date): Buffer => {
  if (Buffer.byteLength(name) > 100) throw new Error(`A backup entry name is longer than 100 bytes: ${name}`);
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, "utf8");
  h.write(octal(0o600, 8), 100);
  h.write(octal(0, 8), 108);
  h.write(octal(0, 8), 116);
  h.write(octal(size, 12), 124);
  h.write(octal(Math.floor(mtime.getTime() / 1000), 12), 136);
  h.write("        ", 148);
  h.write("0", 156);
  h.write("ustar\u000000", 257);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(octal(sum, 7), 148);
  return h;
};

export const tarPadding = (size: number): Buffer => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

export const tarEnd = (): Buffer => Buffer.alloc(BLOCK * 2);

const write = (out: Writable, chunk: Buffer): Promise<void> =>
  new Promise((resolve, reject) => (out.write(chunk, (err) => (err ? reject(err) : resolve()))));

/** Writes one file entry, its content streamed from `content`. */
export const writeTarEntry = async (out: Writable, name: string, size: number, mtime: Date, content: AsyncIterable<Buffer> | Buffer[]): Promise<void> => {
  await write(out, tarHeader(name, size, mtime));
  let written = 0;
  for await (const chunk of content) {
    written += (chunk as Buffer).length;
    await write(out, chunk as Buffer);
  }
  if (written !== size) throw new Error(`${name} changed size while it was archived`);
  await write(out, tarPadding(size));
};

export interface TarEntry {
  name: string;
  size: number;
}

/**
 * Reads a tar stream entry by entry: `onEntry` gets each regular file's name and a sink for its content,
 * chunk by chunk, so an archive larger than memory unpacks.
 */
export const readTar = async (input: AsyncIterable<Buffer>, onEntry: (entry: TarEntry) => { data(chunk: Buffer): Promise<void>; end(): Promise<void> }): Promise<void> => {
  let buf: Buffer = Buffer.alloc(0);
  let current: { left: number; pad: number; sink: ReturnType<typeof onEntry> | null } | null = null;
  for await (const chunk of input) {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    for (;;) {
      if (current) {
        if (current.left > 0) {
          if (buf.length === 0) break;
          const take = Math.min(current.left, buf.length);
          if (current.sink) await current.sink.data(buf.subarray(0, take));
          buf = buf.subarray(take);
          current.left -= take;
          if (current.left > 0) break;
        }
        if (buf.length < current.pad) break;
        buf = buf.subarray(current.pad);
        if (current.sink) await current.sink.end();
        current = null;
      }
      if (buf.length < BLOCK) break;
      const header = buf.subarray(0, BLOCK);
      buf = buf.subarray(BLOCK);
      if (header.every((b) => b === 0)) continue;
      const name = header.subarray(0, 100).toString("utf8").replace(/\0.*$/s, "");
      const size = Number.parseInt(header.subarray(124, 136).toString("ascii").replace(/\0.*$/s, "").trim() || "0", 8);
      const type = String.fromCharCode(header[156] as number);
      current = { left: size, pad: tarPadding(size).length, sink: type === "0" || type === "\0" ? onEntry({ name, size }) : null };
    }
  }
  if (current) throw new Error("The backup archive ends in the middle of a file.");
};
