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
});
