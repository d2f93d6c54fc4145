import type { StagedEvent, Write } from "@earshot/platform/core";
import type { IntegrationDeps } from "./deps";
import { LINKEDIN, type LinkedinConnectionDoc } from "../store";

// Every change of a connection is one outbox commit: the document (replaced at the version read, so a
// racing change makes the verb read again under withVersionRetry) and the event describing it.

export const commitConnection = async (
  deps: IntegrationDeps,
  before: LinkedinConnectionDoc | null,
  next: LinkedinConnectionDoc,
  events: StagedEvent[] = [],
): Promise<LinkedinConnectionDoc> => {
  const write: Write = before
    ? { kind: "replace", collection: LINKEDIN, doc: { ...next, _v: (before._v ?? 1) + 1 }, expectedVersion: before._v ?? 1 }
    : { kind: "insert", collection: LINKEDIN, doc: { ...next, _v: 1 } };
  await deps.outbox.commit([write], events);
  return write.doc as LinkedinConnectionDoc;
};

/** The connection without anything of the member's authorization: no tokens, no Pages, no Page. */
export const strippedConnection = (c: LinkedinConnectionDoc, now: Date): LinkedinConnectionDoc => {
  const next: LinkedinConnectionDoc = { _id: c._id, workspaceId: c.workspaceId, ownerId: c.ownerId, status: "disconnected", pages: [], updatedAt: now };
  if (c.lastSyncAt) next.lastSyncAt = c.lastSyncAt;
  return next;
};
