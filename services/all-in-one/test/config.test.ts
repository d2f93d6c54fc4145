import { serviceModules } from "@earshot/registry";
import type { z } from "zod";
import { allInOneConfigSchema, loadAllInOneConfig } from "../src/config";

describe("the all-in-one's settings", () => {
  it("include every hosted service's declared settings, with their defaults and checks", () => {
    const names = Object.keys((allInOneConfigSchema() as unknown as z.ZodObject).shape);
    for (const m of serviceModules()) expect(names).toEqual(expect.arrayContaining(Object.keys(m.settings ?? {})));
    expect(loadAllInOneConfig({ LOG_LEVEL: "silent" }).EARSHOT_YOUTUBE_DAILY_QUOTA).toBe(10_000);
    expect(() => loadAllInOneConfig({ EARSHOT_POLL_INTERVAL_SECONDS: "0" })).toThrow("EARSHOT_POLL_INTERVAL_SECONDS");
  });
});
