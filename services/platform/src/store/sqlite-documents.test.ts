/// <reference path="./nedb-model.d.ts" />
import * as model from "@seald-io/nedb/lib/model.js";
import fc from "fast-check";
import { reviveDocument, serializeDocument } from "./sqlite-documents";

// Stored rows hold nedb's serialization: the reader must give back exactly what nedb's own reader gives.

const key = fc.oneof(fc.constantFrom("a", "b", "at", "__proto__", "constructor", "0", "date$$"), fc.string({ maxLength: 6 }).filter((k) => !k.startsWith("$") && !k.includes(".")));
const leaf = fc.oneof(
  fc.string(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }),
);
// What a writer may hand the store beyond JSON's own values: non-finite numbers, an invalid date, values
// JSON leaves out, and class instances (left to nedb's serializer).
const oddLeaf = fc.oneof(
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, undefined, new Date(Number.NaN), /x/g, new Map([["a", 1]]), () => 1),
  fc.constant({ toJSON: () => "custom" }),
  fc.constant({ getTime: () => 5 }),
);
const { doc } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("doc")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  doc: fc.dictionary(key, tie("value"), { maxKeys: 5 }),
}));

const { doc: oddDoc } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, leaf, oddLeaf, tie("array"), tie("doc")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  doc: fc.dictionary(key, tie("value"), { maxKeys: 5 }),
}));

describe("serializeDocument", () => {
  it("writes exactly the text nedb's serialize writes, for plain and odd values alike (seeded)", () => {
    fc.assert(
      fc.property(oddDoc, (d) => {
        expect(serializeDocument(d, model.serialize)).toBe(model.serialize(d));
      }),
      { seed: 20261128, numRuns: 1000 },
    );
  });

  it("refuses a field name starting with $ or holding a dot, as nedb does, at any depth", () => {
    for (const bad of [{ $set: 1 }, { a: { "b.c": 1 } }, { list: [{ $where: "x" }] }, { $$date: "not a number" }]) {
      expect(() => model.serialize(bad)).toThrow();
      expect(() => serializeDocument(bad, model.serialize)).toThrow(/Field names cannot/);
    }
    expect(serializeDocument({ at: { $$date: 5 }, gone: { $$deleted: true } }, model.serialize)).toBe(model.serialize({ at: { $$date: 5 }, gone: { $$deleted: true } }));
  });
});

describe("reviveDocument", () => {
  it("gives what nedb's deserialize gives for every serialized document (seeded)", () => {
    fc.assert(
      fc.property(doc, (d) => {
        const raw = model.serialize(d);
        expect(reviveDocument(raw)).toEqual(model.deserialize(raw));
      }),
      { seed: 20261126, numRuns: 500 },
    );
  });

  it("revives dates at every depth, in arrays and objects", () => {
    const at = new Date("2026-11-26T10:00:00.000Z");
    const raw = model.serialize({ _id: "m1", at, nested: { list: [at, { deeper: at }], n: 1 } });
    const revived = reviveDocument(raw) as { at: Date; nested: { list: [Date, { deeper: Date }] } };
    expect(revived.at).toBeInstanceOf(Date);
    expect(revived.at.getTime()).toBe(at.getTime());
    expect(revived.nested.list[0]).toBeInstanceOf(Date);
    expect(revived.nested.list[1].deeper.getTime()).toBe(at.getTime());
  });

  it("keeps a date held under a __proto__ key as a field, never as the prototype", () => {
    const revived = reviveDocument('{"__proto__":{"$$date":0},"a":1}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(revived)).toBe(Object.prototype);
    expect(Object.hasOwn(revived, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(revived, "__proto__")?.value).toEqual(new Date(0));
  });
});
