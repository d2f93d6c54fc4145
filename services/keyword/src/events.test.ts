import { checkStagedEvents } from "@earshot/platform/testing";
import { createKeywordGroup, deleteKeywordGroup, updateKeywordGroup } from "./domain/groups";
import { createKeyword, deleteKeyword, type KeywordFields, updateKeyword } from "./domain/keywords";
import { KEYWORD_EVENTS } from "./events";
import { keywordInput, openKeywordWorld } from "./test-support";

// Every event the service stages carries, as data, exactly the proto JSON form of its type's message in
// events.proto, and every type of the catalog is staged by some verb: a type without a message cannot be
// declared, and one no verb stages is noticed here.

describe("keyword events", () => {
  it("carries each event's data as the JSON form of its events.proto message, for every event type", async () => {
    const world = await openKeywordWorld();
    try {
      const projectId = await world.newProject();
      const editor = world.caller({ [projectId]: "editor" });
      const { group } = await createKeywordGroup(world.deps, editor, { projectId, name: "Rivals" });
      await updateKeywordGroup(world.deps, editor, group._id, { name: "Competition" });
      const filtered = keywordInput(projectId, "acme", { groupId: group._id, aliases: ["acme inc"], filters: { languages: ["en"], minFollowers: 10 } });
      const keyword = await createKeyword(world.deps, editor, filtered as KeywordFields & { projectId: string });
      await updateKeyword(world.deps, editor, keyword._id, { value: "acme corp" });
      await deleteKeyword(world.deps, editor, keyword._id);
      await deleteKeywordGroup(world.deps, editor, group._id);

      const { covered, problems } = checkStagedEvents(KEYWORD_EVENTS, await world.events());
      expect(problems).toEqual([]);
      expect(covered).toEqual(new Set(KEYWORD_EVENTS.types));
    } finally {
      await world.close();
    }
  });
});
