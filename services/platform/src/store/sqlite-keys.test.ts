import { NULL_KEY, translateFilter } from "./sqlite-keys";

describe("translating filters for the SQLite store", () => {
  const all = () => true;

  it("bounds an upper comparison above the missing key, so documents without the field are not walked", () => {
    const at = new Date(Date.UTC(2026, 10, 26));
    for (const op of ["$lt", "$lte"]) {
      const where = translateFilter({ nextAttemptAt: { [op]: at } }, all);
      expect(where?.params).toEqual([at.getTime(), NULL_KEY]);
      expect(where?.sql).toMatch(/ > \?/);
    }
  });

  it("leaves lower comparisons, whose bound already excludes the missing key, as they are", () => {
    const where = translateFilter({ n: { $gte: 3 } }, all);
    expect(where?.params).toEqual([3]);
  });

  it("adds no bound for a comparison with null", () => {
    expect(translateFilter({ n: { $lte: null } }, all)).toBeNull();
  });

  it("says the range every branch of an $or implies on one field beside it, and keeps a cursor's branches from the indexes", () => {
    const cursor = { $or: [{ at: { $lt: 50 } }, { at: 50, _id: { $lt: "itm_9" } }] };
    const where = translateFilter(cursor, all);
    // `at <= 50` walks one index range in order; the branches, marked `+`, are tested on the rows it meets.
    expect(where?.sql).toMatch(/\) <= \?$/);
    expect(where?.params.slice(-1)).toEqual([50]);
    expect(where?.sql).toMatch(/\(\+\(CASE/);
    expect(where?.sql).toMatch(/\+id < \?/);
    // Lower bounds too, and the wider of two.
    expect(translateFilter({ $or: [{ n: { $gt: 2, $lt: 5 } }, { n: { $gte: 1, $lt: 9 } }] }, all)?.params.slice(-2)).toEqual([1, 9]);
  });

  it("adds no range for an $or whose branches do not all bound the field, or bound it with values of two types", () => {
    const author = { $or: [{ authorKey: "a" }, { "author.id": "a" }] };
    expect(translateFilter(author, all)?.params).toEqual(["a", "a"]);
    expect(translateFilter(author, all)?.sql).not.toMatch(/\+/);
    expect(translateFilter({ $or: [{ n: { $lt: 3 } }, { n: { $gt: 7 } }] }, all)?.params).toEqual([3, NULL_KEY, 7]);
    expect(translateFilter({ $or: [{ n: 3 }, { n: "three" }] }, all)?.params).toEqual([3, "three"]);
  });
});
