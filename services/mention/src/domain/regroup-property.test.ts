import fc from "fast-check";
import { openMentionWorld } from "../test-support";
import { ingestPosts } from "./ingest";

// Whatever keywords are created, moved, deactivated, reactivated and whatever custom groups are created and
// deleted (as the keyword service allows: a group with active keywords stays; a deleted group's inactive
// keywords move to My brand first), with posts collected in between by either of two processes, every
// mention's groups are exactly the groups its matched keywords are in at the end.

const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"] as const;
const BRAND = "kwg_brand";
const GROUPS = [BRAND, "kwg_rivals", "kwg_c1", "kwg_c2"] as const;
const CUSTOM = new Set<string>(["kwg_c1", "kwg_c2"]);

type Step =
  | { kind: "create"; word: number; group: number }
  | { kind: "move"; word: number; group: number }
  | { kind: "deactivate" | "reactivate"; word: number }
  | { kind: "post"; words: number[]; other: boolean }
  | { kind: "createGroup" | "deleteGroup"; group: number };

const word = fc.nat({ max: WORDS.length - 1 });
const group = fc.nat({ max: GROUPS.length - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("create" as const), word, group }),
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("move" as const), word, group }) },
  fc.record({ kind: fc.constantFrom("deactivate" as const, "reactivate" as const), word }),
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("post" as const), words: fc.uniqueArray(word, { minLength: 1, maxLength: 3 }), other: fc.boolean() }) },
  fc.record({ kind: fc.constantFrom("createGroup" as const, "deleteGroup" as const), group: fc.constantFrom(2, 3) }),
);

describe("a mention's groups after any keyword history", () => {
  it("are exactly the groups of its matched keywords now", async () => {
    await fc.assert(
      // The first four keywords exist from the start (in My brand or Competitors), so most posts match.
      fc.asyncProperty(fc.array(fc.constantFrom(0, 1), { minLength: 4, maxLength: 4 }), fc.array(step, { minLength: 5, maxLength: 30 }), async (initial, steps) => {
        const world = await openMentionWorld();
        try {
          const projectId = await world.newProject();
          const other = world.replica();
          const groups = new Set<string>();
          const groupEvent = (type: string, groupId: string) =>
            world.keywordEvent(type, { groupId, projectId, workspaceId: "wsp_1", name: groupId, order: 0, isDefault: !CUSTOM.has(groupId) });
          for (const g of [BRAND, "kwg_rivals"]) {
            await groupEvent("keyword_group.created", g);
            groups.add(g);
          }
          /** The keyword service's view: each keyword as its last event carried it. */
          const keywords = new Map<number, Record<string, unknown> & { keywordId: string; groupId: string; active: boolean }>();
          const send = async (type: string, w: number, change: Record<string, unknown>, fields: string[]) => {
            const next = { ...keywords.get(w)!, ...change };
            keywords.set(w, next);
            await world.keywordEvent(type, { ...next, fields });
          };
          const create = async (w: number, groupId: string) =>
            keywords.set(w, { ...(await world.addKeyword(projectId, WORDS[w]!, { keywordId: `kw_${w}`, groupId })), active: true });
          for (const [w, g] of initial.entries()) await create(w, GROUPS[g]!);
          for (const s of steps) {
            const k = "word" in s ? keywords.get(s.word) : undefined;
            const g = "group" in s ? GROUPS[s.group]! : undefined;
            switch (s.kind) {
              case "create":
                if (!k && groups.has(g!)) await create(s.word, g!);
                break;
              case "move":
                if (k && groups.has(g!) && k.groupId !== g) await send("keyword.updated", s.word, { groupId: g }, ["groupId"]);
                break;
              case "deactivate":
                if (k?.active) await send("keyword.deactivated", s.word, { active: false }, ["active"]);
                break;
              case "reactivate":
                if (k && !k.active) await send("keyword.updated", s.word, { active: true }, ["active"]);
                break;
              case "post":
                await ingestPosts(s.other ? other : world.deps, [world.post(projectId, { text: s.words.map((w) => WORDS[w]).join(" and ") })]);
                break;
              case "createGroup":
                if (!groups.has(g!)) {
                  await groupEvent("keyword_group.created", g!);
                  groups.add(g!);
                }
                break;
              case "deleteGroup": {
                const inGroup = [...keywords].filter(([, kw]) => kw.groupId === g);
                if (!groups.has(g!) || inGroup.some(([, kw]) => kw.active)) break;
                for (const [w] of inGroup) await send("keyword.updated", w, { groupId: BRAND }, ["groupId"]);
                await groupEvent("keyword_group.deleted", g!);
                groups.delete(g!);
                break;
              }
            }
          }
          const groupOf = new Map([...keywords.values()].map((kw) => [kw.keywordId, kw.groupId]));
          const mentions = await world.deps.collections.mentions.find({ projectId });
          for (const m of mentions) {
            expect([...m.groupIds].sort()).toEqual([...new Set(m.keywordIds.map((id) => groupOf.get(id)))].sort());
          }
        } finally {
          await world.close();
        }
      }),
      { seed: 20261128, numRuns: 60 },
    );
  });
});
