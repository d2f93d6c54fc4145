import { validationFailed } from "@earshot/platform/core";

// A change feed cursor: where a reader is in its project's change sequence, and when it was handed out
// (the feed serves a cursor for the retention after that). Opaque to clients: base64url of a small
// versioned JSON, checked on the way in so a cursor of another project or a made-up one is a 400 naming
// `cursor`, never a read of the wrong place.

export interface ChangeCursor {
  projectId: string;
  /** The last sequence number the reader has seen (every change up to it). */
  seq: number;
  /** When it was issued. */
  issuedAt: Date;
}

/** Asked instead of a cursor: only what commits from now on. */
export const LATEST = "latest";

const VERSION = 1;

export const encodeChangeCursor = (c: ChangeCursor): string =>
  Buffer.from(JSON.stringify({ v: VERSION, p: c.projectId, s: c.seq, t: c.issuedAt.getTime() })).toString("base64url");

const badCursor = (message: string) => validationFailed([{ path: "cursor", message }]);

/** The cursor, checked to be one this project's feed returned; 400 naming `cursor` otherwise. */
export const decodeChangeCursor = (text: string, projectId: string): ChangeCursor => {
  let raw: unknown;
  try {
    raw = /^[A-Za-z0-9_-]{1,400}$/.test(text) ? JSON.parse(Buffer.from(text, "base64url").toString("utf8")) : undefined;
  } catch {
    raw = undefined;
  }
  const c = raw as { v?: unknown; p?: unknown; s?: unknown; t?: unknown } | undefined;
  const valid =
    typeof c === "object" && c !== null && c.v === VERSION && typeof c.p === "string" && Number.isSafeInteger(c.s) && (c.s as number) >= 0 && Number.isSafeInteger(c.t);
  if (!valid) throw badCursor(`is not a cursor this change feed returned (use a nextCursor, "${LATEST}", or none)`);
  if (c.p !== projectId) throw badCursor("belongs to another project's change feed");
  return { projectId, seq: c.s as number, issuedAt: new Date(c.t as number) };
};
