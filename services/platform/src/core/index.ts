// What domain code may use: errors, ids, time, bounded text, paging and version-retry helpers, the post
// check (what collectors emit and ingestion takes), idempotency
// effects, the workspace guard (plan limits under concurrency), the TYPES of the store, outbox and event
// ports (a domain verb describes its writes and events; adapters, drivers and transports stay out of
// reach), and the event catalogs' pure helpers (staging an event of a catalog, decoding one). A lint rule
// keeps `src/domain/**` of every service on this entry point alone.
export * from "../errors";
export * from "../ids";
export * from "../clock";
export * from "../text/text-limits";
export * from "../text/email";
export * from "../text/text-field";
export * from "./paging";
export * from "./retry";
export * from "./keyed-queue";
export * from "./sources";
export * from "./post";
export * from "./project-caller";
export * from "./project-copy";
export { InvalidCursorError } from "../store/checks";
export {
  isUniqueViolation,
  isVersionConflict,
  UniqueViolationError,
  VersionConflictError,
} from "../store/port";
export type {
  Collection,
  CountKey,
  CountRow,
  CountSpec,
  Doc,
  DocumentStore,
  Filter,
  FindOptions,
  IndexSpec,
  Page,
  PageOptions,
  SortSpec,
  Update,
  UpdateResult,
  UpsertOptions,
  Write,
} from "../store/port";
export { EFFECTS_COLLECTION, isEffectClash, runOnce } from "../outbox/effects";
export type { EffectLookup, EffectRecord, EffectWrite } from "../outbox/effects";
export type { Outbox, StagedEvent } from "../outbox/outbox";
export { type GuardedCommit, WORKSPACE_GUARDS, WorkspaceGuard, type WorkspaceGuardDoc } from "../outbox/workspace-guard";
export { type CloudEvent, type NewEvent, topicForDomain } from "../events/cloud-event";
export * from "../events/event-catalog";
export type { Logger } from "../logger";
export type { MailMessage, Mailer, SentMail } from "../mail/mailer";
export * from "./token-sealer";
export * from "./unsubscribe-token";
