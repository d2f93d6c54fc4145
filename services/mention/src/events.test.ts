import { checkStagedEvents } from "@earshot/platform/testing";
import { rateMention } from "./domain/feedback";
import { ingestPosts } from "./domain/ingest";
import { updateMentionStatus } from "./domain/mentions";
import { MENTION_EVENTS } from "./events";
import { openMentionWorld } from "./test-support";

// Every event the service stages carries, as data, exactly the proto JSON form of its type's message in
// events.proto, and every type of the catalog is staged by some verb: a type without a message cannot be
// declared, and one no verb stages is noticed here.

describe("mention events", () => {
  it("carries each event's data as the JSON form of its events.proto message, for every event type", async () => {
    const world = await openMentionWorld();
    try {
      const projectId = await world.newProject();
      const { groupId } = await world.addKeyword(projectId, "acme");
      await world.keywordEvent("keyword_group.created", { groupId, projectId, workspaceId: "wsp_1", name: "My brand", order: 0, isDefault: true });
      // One post with every optional field, one with none of them.
      await ingestPosts(world.deps, [
        world.post(projectId, { title: "Acme news", parentId: "t0", text: "Acme is great" }),
        { ...world.post(projectId, { text: "acme" }), lang: undefined, metrics: undefined, author: { id: "u2", handle: "bo" } },
      ]);
      const [mention] = await world.deps.collections.mentions.find({ projectId }, { limit: 1 });
      await updateMentionStatus(world.deps, world.caller({ [projectId]: "editor" }), mention!._id, "done");
      // A rating: the mention's feedback and relevance (reasons, label enum) in the event's mention.
      await rateMention(world.deps, world.caller({ [projectId]: "editor" }), mention!._id, { relevant: false, reason: "not us" });
      await world.deps.relevance.rescores.settled(projectId);

      const events = await world.events();
      const { covered, problems } = checkStagedEvents(MENTION_EVENTS, events);
      expect(problems).toEqual([]);
      expect(covered).toEqual(new Set(MENTION_EVENTS.types));
      expect(events.filter((e) => e.type === "mention.created")).toHaveLength(2);
      const rated = events.find((e) => e.type === "mention.updated" && (e.data as { fields: string[] }).fields.includes("feedback"));
      expect(rated?.data).toMatchObject({
        fields: ["feedback", "relevance"],
        mention: { feedback: { relevant: false, reason: "not us" }, relevance: { label: expect.any(Number), model: expect.stringMatching(/^nb1\.1\./) } },
      });
    } finally {
      await world.close();
    }
  });
});
