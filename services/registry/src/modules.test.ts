import { consumedTopics } from "@earshot/platform";
import { declaredTopics, loadServiceModule, serviceModules } from "./modules";
import { moduleExportName } from "./names";
import { SERVICES } from "./services";

describe("the service modules the registry names (the all-in-one hosts them)", () => {
  it("are every registered service, in registry order, each its package's <name>Service module", () => {
    const modules = serviceModules();
    expect(modules.map((m) => m.name)).toEqual(SERVICES.map((s) => s.name));
    for (const m of modules) expect(typeof m.open).toBe("function");
  });

  it("refuses a registered package that does not export its ServiceModule, naming the export it needs", () => {
    expect(() => loadServiceModule({ name: "platform", module: "@earshot/platform" })).toThrow(
      `@earshot/platform must export ${moduleExportName("platform")}, a ServiceModule named "platform"`,
    );
  });
});

describe("declaredTopics", () => {
  it("lists every topic a registered service consumes and its .dlq, once each, sorted", () => {
    const topics = declaredTopics();
    const consumed = [...new Set(serviceModules().flatMap((m) => consumedTopics(m)))];
    expect(consumed.length).toBeGreaterThan(0);
    for (const t of consumed) expect(topics).toEqual(expect.arrayContaining([t, `${t}.dlq`]));
    expect(topics).toHaveLength(consumed.length * 2);
    expect([...topics].sort()).toEqual(topics);
  });
});
