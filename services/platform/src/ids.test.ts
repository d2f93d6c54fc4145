import { isId, newId, ulid } from "./ids";

describe("ids", () => {
  it("makes prefixed ULIDs that sort in creation order, also within one millisecond", () => {
    const ids = Array.from({ length: 1000 }, () => newId("prj", 1_700_000_000_000));
    expect(new Set(ids).size).toBe(1000);
    expect([...ids].sort()).toEqual(ids);
    ids.forEach((id) => expect(isId("prj", id)).toBe(true));
    expect(newId("prj", 1_700_000_000_001) > (ids[999] as string)).toBe(true);
  });

  it("encodes the time in the first ten characters", () => {
    jest.isolateModules(() => {
      // A fresh module: ids never go back in time within one process, so earlier tests would shift these.
      const fresh = jest.requireActual<typeof import("./ids")>("./ids");
      expect(fresh.ulid(1469918176385).slice(0, 10)).toBe("01ARYZ6S41");
    });
    expect(ulid(0).slice(0, 10) >= "0000000000").toBe(true);
  });

  it("refuses ids of another kind or shape", () => {
    expect(isId("prj", newId("usr"))).toBe(false);
    expect(isId("prj", "prj_not-a-ulid")).toBe(false);
  });
});
