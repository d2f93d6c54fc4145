import fc from "fast-check";
import { openEmbeddedStore } from "../store/embedded";
import type { DocumentStore } from "../store/port";
import { applyProjectChange, projectChangeOf, type ProjectCopyDoc, type ProjectEventShape } from "./project-copy";

// The copy of a project every consumer of project events keeps, with one rule set: archived is final,
// a status only when the event says one, the service's own fields beside it.

interface Copy extends ProjectCopyDoc {
  timezone?: string;
}

const event = (type: string, status = "", projectId = "prj_1"): ProjectEventShape => ({ type, data: { projectId, workspaceId: "wsp_1", status } });

describe("a service's copy of a project", () => {
  let store: DocumentStore;
  beforeEach(async () => {
    store = await openEmbeddedStore();
  });
  afterEach(() => store.close());

  const apply = async (e: ProjectEventShape, fields: Partial<Copy> = {}) => {
    const change = projectChangeOf(e);
    return change ? applyProjectChange(store.collection<Copy>("projects"), change, { fields, defaults: { timezone: "UTC" }, now: new Date() }) : undefined;
  };
  const copy = () => store.collection<Copy>("projects").findById("prj_1");

  it("starts active with the service's defaults, and takes a status only when an update says one", async () => {
    expect(await apply(event("project.updated", ""), { timezone: "Europe/Paris" })).toBe("active");
    expect(await copy()).toMatchObject({ workspaceId: "wsp_1", status: "active", timezone: "Europe/Paris" });
    expect(await apply(event("project.updated", "paused"))).toBe("paused");
    expect(await apply(event("project.updated", "frozen"))).toBe("paused");
    expect(await copy()).toMatchObject({ status: "paused", timezone: "Europe/Paris" });
  });

  it("keeps an archived project archived whatever comes after, late or replayed", async () => {
    await apply(event("project.created"));
    expect(await apply(event("project.archived"))).toBe("archived");
    expect(await apply(event("project.created"))).toBeUndefined();
    expect(await apply(event("project.updated", "active"), { timezone: "Asia/Tokyo" })).toBeUndefined();
    expect(await copy()).toMatchObject({ status: "archived", timezone: "UTC" });
  });

  it("reads nothing from other types or events without ids", () => {
    expect(projectChangeOf(event("member.added"))).toBeUndefined();
    expect(projectChangeOf({ type: "project.created", data: { projectId: "", workspaceId: "wsp_1" } })).toBeUndefined();
  });

  it("ends in the status of the last event, or archived once one archived it, whatever the sequence (seeded)", async () => {
    const types = fc.constantFrom<[string, string]>(["project.created", ""], ["project.updated", "active"], ["project.updated", "paused"], ["project.updated", ""], ["project.archived", ""]);
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(types, { minLength: 1, maxLength: 12 }), async (sequence) => {
        const id = `prj_${++runs}`;
        let expected: string | undefined;
        for (const [type, status] of sequence) {
          const change = projectChangeOf(event(type, status, id));
          await applyProjectChange(store.collection<Copy>("projects"), change!, { now: new Date() });
          if (expected === "archived") continue;
          expected = type === "project.archived" ? "archived" : type === "project.created" ? "active" : status || (expected ?? "active");
        }
        expect((await store.collection<Copy>("projects").findById(id))?.status).toBe(expected);
      }),
      { seed: 29, numRuns: 60 },
    );
  });
});
