import { ID_PREFIXES, idKindsText, idPattern, isId, newId, ulid } from "./ids";

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

  it("states the shape of every kind as one pattern, which its new ids match and other kinds' do not", () => {
    for (const prefix of ID_PREFIXES) {
      const re = new RegExp(idPattern(prefix), "u");
      expect({ prefix, own: re.test(newId(prefix)), lower: re.test(newId(prefix).toLowerCase()), spaced: re.test(` ${newId(prefix)}`) }).toEqual({ prefix, own: true, lower: false, spaced: false });
      for (const other of ID_PREFIXES) if (other !== prefix) expect({ prefix, other, matches: re.test(newId(other)) }).toEqual({ prefix, other, matches: false });
    }
    expect(new RegExp(idPattern("mbr", "inv")).test(newId("inv"))).toBe(true);
  });

  it("names the kinds a field takes in the words of a refusal", () => {
    expect(idKindsText(["kw"])).toBe("a keyword id (kw_…)");
    expect(idKindsText(["mbr", "inv"])).toBe("a member id (mbr_…) or an invitation id (inv_…)");
    expect(idKindsText(["alr"])).toBe("an alert rule id (alr_…)");
  });
});
