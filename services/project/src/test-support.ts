import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMailer, type DocumentStore, ManualClock, openEmbeddedStore, Outbox, silentLogger } from "@earshot/platform";
import type { Caller, ProjectDeps } from "./domain/deps";
import { WorkspaceGuard } from "./domain/workspace-guard";
import { openProjectCollections } from "./store";

// Test wiring for the domain verbs: an in-memory store, the real outbox, mail written to files in a temp
// directory, and a clock the test moves. `replica()` gives a second service instance over the same store,
// with its own in-process queues, as another replica would have.

export interface ProjectWorld {
  store: DocumentStore;
  clock: ManualClock;
  deps: ProjectDeps;
  replica(): ProjectDeps;
  caller(overrides?: Partial<Caller>): Caller;
  /** Emails sent so far (one file each). */
  mailCount(): Promise<number>;
  close(): Promise<void>;
}

export const openProjectWorld = async (): Promise<ProjectWorld> => {
  const store = await openEmbeddedStore();
  // Now, not a fixed date: stores expire TTL-indexed records (effects, outbox) by the real time.
  const clock = new ManualClock(new Date());
  const collections = await openProjectCollections(store);
  const mailDir = await mkdtemp(join(tmpdir(), "earshot-project-mail-"));
  const mailer = createMailer({ from: "Earshot <no-reply@earshot.local>", dataDir: mailDir, logger: silentLogger() });
  const replica = (): ProjectDeps => {
    const outbox = new Outbox(store, clock, "project");
    return { collections, outbox, clock, mailer, logger: silentLogger(), guard: new WorkspaceGuard(collections, outbox, clock) };
  };
  const deps = replica();
  await deps.outbox.ensureIndexes();
  return {
    store,
    clock,
    deps,
    replica,
    caller: (overrides = {}) => ({
      userId: "usr_owner",
      workspaceId: "wsp_1",
      email: "owner@example.com",
      allowances: { projects: 10, seats: 10 },
      ...overrides,
    }),
    mailCount: async () => (await readdir(join(mailDir, "mail")).catch(() => [])).length,
    close: async () => {
      mailer.close();
      await store.close();
      await rm(mailDir, { recursive: true, force: true });
    },
  };
};
