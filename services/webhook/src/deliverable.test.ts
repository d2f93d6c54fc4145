import { ACCOUNT_EVENTS, ALERT_EVENTS, INTEGRATION_EVENTS, KEYWORD_EVENTS, MENTION_EVENTS, PROJECT_EVENTS } from "@earshot/contracts/events";
import { DELIVERABLE_CATALOGS, INTERNAL_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from "./deliverable";

// Every event a service publishes is either sent to receivers or named internal with its reason: a type
// added to a catalog cannot silently become deliverable, nor silently stay out.

describe("the deliverable event types", () => {
  it("are every type of the deliverable catalogs but the ones named internal, in the catalogs' order", () => {
    const all = DELIVERABLE_CATALOGS.flatMap((c) => [...c.types] as string[]);
    expect(WEBHOOK_EVENT_TYPES).toEqual(all.filter((t) => !(t in INTERNAL_EVENT_TYPES)));
    for (const internal of Object.keys(INTERNAL_EVENT_TYPES)) expect(all).toContain(internal);
  });

  it("leave out the catalogs that speak of people, credentials or rules: every type of every catalog is deliverable or internal", () => {
    const deliverable = new Set<string>(WEBHOOK_EVENT_TYPES);
    const outside = [ACCOUNT_EVENTS, ALERT_EVENTS].flatMap((c) => [...c.types] as string[]);
    for (const type of outside) expect(deliverable.has(type)).toBe(false);
    for (const catalog of [PROJECT_EVENTS, KEYWORD_EVENTS, MENTION_EVENTS, INTEGRATION_EVENTS]) {
      for (const type of catalog.types) expect(deliverable.has(type) !== type in INTERNAL_EVENT_TYPES).toBe(true);
    }
    expect(WEBHOOK_EVENT_TYPES).toEqual(expect.arrayContaining(["mention.created", "keyword_group.deleted", "integration.linkedin.synced"]));
  });
});
