import { DomainError } from "../errors";
import { openEmbeddedStore } from "../store/embedded";
import { pageLimit, withCursorErrors } from "./paging";

const fieldErrorOf = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return { code: (err as DomainError).code, errors: (err as DomainError).errors };
  }
  throw new Error("expected a refusal");
};

describe("pageLimit", () => {
  it("answers the default page size when the limit is absent", () => {
    expect(pageLimit(undefined)).toBe(20);
    expect(pageLimit(undefined, 50, 10)).toBe(10);
  });

  it("keeps a limit from 1 to the maximum", () => {
    expect(pageLimit(1)).toBe(1);
    expect(pageLimit(100)).toBe(100);
    expect(pageLimit(7, 7)).toBe(7);
  });

  it.each([0, -1, 101, 2.5, Number.NaN, Number.POSITIVE_INFINITY])("refuses limit %p naming the field", (limit) => {
    expect(fieldErrorOf(() => pageLimit(limit))).toEqual({
      code: "validation_failed",
      errors: [{ path: "limit", message: "must be an integer from 1 to 100" }],
    });
  });
});

describe("withCursorErrors", () => {
  it("answers a cursor the store cannot read as a validation error on `cursor`", async () => {
    const store = await openEmbeddedStore();
    try {
      const things = store.collection<{ _id: string }>("things");
      await things.insertOne({ _id: "a" });
      const read = withCursorErrors(() => things.findPage({}, { limit: 1, cursor: "not-a-cursor" }));
      await expect(read).rejects.toMatchObject({ code: "validation_failed", errors: [{ path: "cursor", message: "is not a cursor this list returned" }] });
    } finally {
      await store.close();
    }
  });

  it("passes a page through and lets other failures pass unchanged", async () => {
    await expect(withCursorErrors(async () => ({ items: [1], nextCursor: null }))).resolves.toEqual({ items: [1], nextCursor: null });
    const other = new Error("disk on fire");
    await expect(withCursorErrors(() => Promise.reject(other))).rejects.toBe(other);
  });
});
