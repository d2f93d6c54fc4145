import { assertTransactionsSupported, findIndexWithKey, indexOptionsOfDescription, isIndexConflict, isTransactionsUnsupported } from "./mongo-support";
import { ReplicaSetRequiredError } from "./port";

// The decisions the MongoDB adapter takes from server answers, on the answers themselves (the adapter's
// calls to a real server are in mongo.test.ts).

describe("MongoDB server answers", () => {
  it("accepts replica-set members and mongos routers, and refuses a standalone server naming the fix", () => {
    expect(() => assertTransactionsSupported({ setName: "rs0", isWritablePrimary: true })).not.toThrow();
    expect(() => assertTransactionsSupported({ msg: "isdbgrid" })).not.toThrow();
    expect(() => assertTransactionsSupported({ isWritablePrimary: true })).toThrow(ReplicaSetRequiredError);
    expect(() => assertTransactionsSupported({ isWritablePrimary: true, setName: "" })).toThrow(/must be a replica set.*--replSet/);
  });

  it("recognises a standalone server's refusal of a transaction and index option conflicts", () => {
    const illegal = Object.assign(new Error("Transaction numbers are only allowed on a replica set member or mongos"), { code: 20 });
    expect(isTransactionsUnsupported(illegal)).toBe(true);
    expect(isTransactionsUnsupported(Object.assign(new Error("other"), { code: 20 }))).toBe(false);
    expect(isIndexConflict({ code: 85 })).toBe(true);
    expect(isIndexConflict({ code: 86 })).toBe(true);
    expect(isIndexConflict({ code: 11000 })).toBe(false);
  });

  it("finds the index with exactly the key pattern asked for and reads its options", () => {
    const indexes = [
      { name: "_id_", key: { _id: 1 } },
      { name: "name_1_n_1", key: { name: 1, n: 1 }, unique: true },
      { name: "at_1", key: { at: 1 }, expireAfterSeconds: 60 },
    ];
    expect(findIndexWithKey(indexes, { name: 1, n: 1 })?.name).toBe("name_1_n_1");
    expect(findIndexWithKey(indexes, { n: 1, name: 1 })).toBeUndefined();
    expect(findIndexWithKey(indexes, { name: 1, n: -1 })).toBeUndefined();
    expect(indexOptionsOfDescription(indexes[0] as never)).toEqual({ unique: true, sparse: false });
    expect(indexOptionsOfDescription(indexes[2] as never)).toEqual({ unique: false, sparse: false, expireAfterSeconds: 60 });
  });
});
