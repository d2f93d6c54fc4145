import { newId } from "@earshot/platform";
import { isSubscribable, parseResourceUri, RESOURCE_TEMPLATES, resourceUri } from "./resource-uris";

describe("MCP resource URIs", () => {
  const projectId = newId("prj");
  const viewId = newId("view");
  const mentionId = newId("men");

  it("reads back every address it writes", () => {
    for (const address of [
      { kind: "project", projectId },
      { kind: "project-mentions", projectId },
      { kind: "view-mentions", viewId },
      { kind: "mention", mentionId },
    ] as const) {
      expect(parseResourceUri(resourceUri(address))).toEqual(address);
    }
  });

  it("names nothing for unknown forms and ids of the wrong shape", () => {
    for (const uri of [
      "earshot://projects/Acme",
      `earshot://projects/${viewId}`,
      `earshot://views/${viewId}`,
      `earshot://mentions/${mentionId}/mentions`,
      `earshot://keywords/${newId("kw")}`,
      `https://projects/${projectId}`,
      `earshot://projects/${projectId}/mentions?limit=5`,
      `earshot://projects/${projectId}/`,
    ]) {
      expect(parseResourceUri(uri)).toBeUndefined();
    }
  });

  it("lets clients subscribe to the two mentions lists only", () => {
    expect(isSubscribable({ kind: "project-mentions", projectId })).toBe(true);
    expect(isSubscribable({ kind: "view-mentions", viewId })).toBe(true);
    expect(isSubscribable({ kind: "project", projectId })).toBe(false);
    expect(isSubscribable({ kind: "mention", mentionId })).toBe(false);
  });

  it("publishes one template per kind of address", () => {
    expect(RESOURCE_TEMPLATES.map((t) => t.kind)).toEqual(["project", "project-mentions", "view-mentions", "mention"]);
  });
});
