import { decodeEvent, type EventCatalog, type EventData, type EventMessages, type EventOf, parseCloudEvent } from "@earshot/platform";
import { PROJECT_EVENTS, type ProjectEvent, type ProjectEventType } from "@earshot/contracts/events";
import type { Actor, Harness } from "./harness";

// Waiting on the edge's membership cache instead of the clock: a test that changes who is in a project
// waits until the gateway has applied the project event, then looks at what the next request sees.

/** Resolves when the edge's membership cache has applied the first event of `type` that `match` accepts. */
export const membershipEventApplied = <K extends ProjectEventType>(h: Harness, type: K, match: (data: EventData<typeof PROJECT_EVENTS, K>) => boolean): Promise<ProjectEvent> =>
  new Promise<ProjectEvent>((resolve) => {
    const off = h.running.gateway.memberships.onApplied((event) => {
      if (event.type === type && match(event.data as EventData<typeof PROJECT_EVENTS, K>)) {
        off();
        resolve(event);
      }
    });
  });

/**
 * Adds a new person to the project with `role` and waits until the edge has applied their member.added,
 * so no event about them is still on its way when the test looks at what their requests see.
 */
export const joinProject = async (h: Harness, owner: Actor, projectId: string, role: "viewer" | "editor"): Promise<Actor> => {
  const person = await h.newActor();
  const delivered = membershipEventApplied(h, "member.added", (d) => d.userId === person.userId && d.projectId === projectId);
  const invited = await h.call("invite_project_member", { projectId, email: person.email, role }, owner.key);
  if (invited.status !== 201) throw new Error(`invite failed: ${JSON.stringify(invited.body)}`);
  await h.project.acceptInvitation({ token: h.inviteToken(person.email)!, userId: person.userId, userEmail: person.email, userName: "Member" });
  await delivered;
  return person;
};

/** The member id (mbr_…) of a user in a project, as its owner lists it. */
export const memberIdOf = async (h: Harness, owner: Actor, projectId: string, userId: string): Promise<string> => {
  const res = await h.call("list_project_members", { projectId, limit: 100 }, owner.key);
  const row = (res.body.data as Array<{ id: string; userId: string | null }>).find((m) => m.userId === userId);
  if (!row) throw new Error(`${userId} is not a member of ${projectId}`);
  return row.id;
};

/**
 * Resolves with the events of a domain (`@earshot/<domain>/events`) that `match` accepts, decoded with
 * their messages, once `count` of them were published (after their service committed them): waiting on a
 * service's own events instead of the clock.
 */
export const busEvents = async <M extends EventMessages>(
  h: Harness,
  events: EventCatalog<M>,
  count: number,
  match: (event: EventOf<EventCatalog<M>>) => boolean,
): Promise<Array<EventOf<EventCatalog<M>>>> => {
  type Decoded = EventOf<EventCatalog<M>>;
  const seen: Decoded[] = [];
  let done!: (events: Decoded[]) => void;
  const all = new Promise<Decoded[]>((resolve) => (done = resolve));
  const subscription = await h.running.bus.subscribe(
    { groupId: `test.${events.topic}.${Math.random().toString(36).slice(2)}`, topics: [events.topic], startFrom: "earliest" },
    async (message) => {
      const parsed = parseCloudEvent(message.value);
      const event = parsed && (decodeEvent(events, parsed) as Decoded | undefined);
      if (!event || !match(event) || seen.some((e) => e.id === event.id)) return;
      seen.push(event);
      if (seen.length === count) done(seen);
    },
  );
  try {
    return await all;
  } finally {
    await subscription.stop();
  }
};
