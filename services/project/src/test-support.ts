import { ACCOUNT_EVENTS, type AccountEvent, type AccountEventType } from "@earshot/contracts/events";
import { receivedEvent } from "@earshot/platform/testing";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CloudEvent,
  createMailer,
  type DocumentStore,
  type MailMessage,
  ManualClock,
  newId,
  openEmbeddedStore,
  OUTBOX_COLLECTION,
  Outbox,
  type OutboxRecord,
  silentLogger,
} from "@earshot/platform";
import type { Caller, ProjectDeps } from "./domain/deps";
import { acceptInvitation } from "./domain/invitations";
import { inviteMember } from "./domain/members";
import { createProject } from "./domain/projects";
import { openProjectCollections } from "./store";
import { wireProject } from "./wiring";

// Test wiring for the domain verbs: an in-memory store, the real outbox, the real mailer writing files to a
// temp directory (and remembering what it sent, so a test can follow an invitation link), and a clock the
// test moves. `replica()` gives a second service instance over the same store, with its own in-process
// queues, as another replica would have.

export interface ProjectWorld {
  store: DocumentStore;
  clock: ManualClock;
  deps: ProjectDeps;
  replica(): ProjectDeps;
  /** The workspace owner by default; give another userId/email for someone else. */
  caller(overrides?: Partial<Caller>): Caller;
  /** Emails sent so far (one file each). */
  mailCount(): Promise<number>;
  /** The messages sent so far, oldest first. */
  sentMail(): MailMessage[];
  /** The token of the newest invitation link mailed to `email`. */
  invitationToken(email: string): string;
  /** Events committed through the outbox so far, oldest first. */
  events(): Promise<Array<CloudEvent & { topic: string; key: string }>>;
  close(): Promise<void>;
}

export const openProjectWorld = async (): Promise<ProjectWorld> => {
  const store = await openEmbeddedStore();
  // Now, not a fixed date: stores expire TTL-indexed records (effects, outbox) by the real time.
  const clock = new ManualClock(new Date());
  const collections = await openProjectCollections(store);
  const mailDir = await mkdtemp(join(tmpdir(), "earshot-project-mail-"));
  const files = createMailer({ from: "Earshot <no-reply@earshot.local>", dataDir: mailDir, logger: silentLogger() });
  const sent: MailMessage[] = [];
  const mailer = { send: (m: MailMessage) => files.send(m).then((r) => (sent.push(m), r)), close: () => files.close() };
  const replica = (): ProjectDeps => wireProject({ store, collections, outbox: new Outbox(store, clock, "project"), clock, mailer, logger: silentLogger() });
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
    sentMail: () => [...sent],
    invitationToken: (email) => {
      const mail = [...sent].reverse().find((m) => m.to === email);
      const token = mail && /\/invitations\/([A-Za-z0-9_-]{20,})/.exec(mail.text)?.[1];
      if (!token) throw new Error(`no invitation mailed to ${email}`);
      return token;
    },
    events: async () =>
      (await store.collection<OutboxRecord>(OUTBOX_COLLECTION).find({}, { sort: { _id: 1 } })).map((r) => ({ ...r.event, topic: r.topic, key: r.key })),
    close: async () => {
      mailer.close();
      await store.close();
      await rm(mailDir, { recursive: true, force: true });
    },
  };
};

// The helpers below each act a second after the last step, so lists ordered by time (newest projects,
// members by joining) come out in the order the test made them, never by a tie-break of equal times.

/** A project the world's owner (or `caller`) created. */
export const newProject = async (world: ProjectWorld, name = "Launch", caller = world.caller()) => {
  world.clock.advance(1000);
  return (await createProject(world.deps, caller, { name })).project;
};

/** Someone invited by the project's owner who accepted with `role`; returns them as a caller. */
export const addMember = async (world: ProjectWorld, projectId: string, role: "viewer" | "editor", email = `${role}@example.com`): Promise<Caller> => {
  world.clock.advance(1000);
  await inviteMember(world.deps, world.caller(), { projectId, email, role, acceptUrlBase: "http://localhost:8080" });
  const member = world.caller({ userId: newId("usr", world.clock.now().getTime()), email });
  await acceptInvitation(world.deps, { token: world.invitationToken(email), userId: member.userId, userEmail: email, userName: role });
  return member;
};

/** An event of the account service about a user, as the project service's consumer receives it. */
export const accountEvent = (type: AccountEventType, userId: string, workspaceId = "wsp_1"): AccountEvent =>
  receivedEvent(ACCOUNT_EVENTS, type, { userId, workspaceId });
export { refusalOf } from "@earshot/platform/testing";
