import { openEmbeddedStore, type SqliteStore } from "@earshot/platform";
import { openIntegrationCollections, POLL_RECORDS } from "./store";

describe("integration store indexes", () => {
  it("reads a project's poll records for its source health through an index, not a scan of every project's", async () => {
    const store = (await openEmbeddedStore()) as SqliteStore;
    try {
      await openIntegrationCollections(store);
      // The filter get_source_health uses (domain/health.ts).
      const plan = store.explainFind(POLL_RECORDS, { projectId: "prj_1", at: { $gt: new Date("2026-11-25T00:00:00Z") } }).join("\n");
      expect(plan).toMatch(/USING INDEX/);
      expect(plan).not.toMatch(/\bSCAN\b/);
    } finally {
      await store.close();
    }
  });
});
