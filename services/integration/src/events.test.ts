import { checkStagedEvents } from "@earshot/platform/testing";
import { pollNow } from "./domain/poll";
import { INTEGRATION_EVENTS } from "./events";
import { TestCollector, testPost } from "./collector-test-support";
import { openIntegrationWorld } from "./test-support";
import { completeLinkedinAuthorization } from "./domain/linkedin-callback";
import { getLinkedinConnectUrl } from "./domain/linkedin-connect";
import { disconnectLinkedin } from "./domain/linkedin-disconnect";
import { selectLinkedinPage } from "./domain/linkedin-select";
import { syncLinkedin } from "./domain/linkedin-sync";

// Every event the integration service stages carries, as data, exactly the proto JSON form of its type's
// message in events.proto, and every type of the catalog is staged by some verb: a type without a
// message cannot be declared, and one no verb stages is noticed here. A LinkedIn connection's life
// stages all of them: connected, a sync (post.collected for the post it finds, then synced), disconnected;
// and a poll of X emits a post with every optional field.

const REDIRECT = "http://127.0.0.1:9/integrations/linkedin/callback";
const ACME = "urn:li:organization:1001";

it("carries each event's data as the JSON form of its events.proto message, for every event type", async () => {
  const x = new TestCollector("x");
  const w = await openIntegrationWorld({ platforms: ["linkedin"], collectors: { x } });
  try {
    const projectId = await w.newProject();
    const owner = w.caller({ [projectId]: "owner" }, { allowances: { linkedinSyncsPerDay: 20 } });
    await w.addKeyword(projectId, "zephyr widgets", { filters: { languages: ["en"], minFollowers: 1 } });
    // The owner goes through LinkedIn's authorization as member-a (who administers Acme Corp).
    const { url } = await getLinkedinConnectUrl(w.deps, owner, { projectId, redirectUri: REDIRECT });
    const target = new URL(url);
    const form = new URLSearchParams(target.searchParams);
    form.set("member", "member-a");
    form.set("action", "allow");
    const decided = await fetch(`${target.origin}${target.pathname}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });
    const back = new URL(decided.headers.get("location") ?? "").searchParams;
    await completeLinkedinAuthorization(w.deps, { state: back.get("state") ?? "", code: back.get("code") ?? "", error: "", errorDescription: "" });
    await selectLinkedinPage(w.deps, owner, { projectId, organizationUrn: ACME });
    w.sims.world.publish("linkedin", { organizationUrn: ACME, text: "Acme Corp ships zephyr widgets today", createdAtMs: w.clock.now().getTime() - 60_000 });
    expect((await syncLinkedin(w.deps, owner, projectId)).postsFound).toBe(1);
    await disconnectLinkedin(w.deps, owner, projectId);
    const full = testPost("x", w.clock.now(), 1_000, {
      title: "Acme",
      author: { id: "a1", handle: "ana", name: "Ana", url: "https://x.com/ana", followers: 1_234 },
      lang: "en",
      parentId: "x-0",
      metrics: { likes: 1, replies: 2, shares: 3, views: 4_000_000_000 },
    });
    x.answer({ posts: [full], cursor: {}, skipped: 0 });
    expect(await pollNow(w.deps, projectId, "x")).toEqual({ postsFound: 1 });

    const { covered, problems } = checkStagedEvents(INTEGRATION_EVENTS, await w.events());
    expect(problems).toEqual([]);
    expect(covered).toEqual(new Set(INTEGRATION_EVENTS.types));
  } finally {
    await w.close();
  }
});
