import { z } from "zod";
import { checkFields } from "./text-field";

// What a person fixing a request reads for each bad field.

describe("field errors", () => {
  const schema = z.object({ name: z.string(), count: z.number(), tags: z.array(z.string()), nested: z.object({ url: z.string() }) }).strict();

  it("say a left-out field is required, by its path, nested ones too", () => {
    expect(checkFields(schema, { count: 1, tags: [], nested: {} })).toEqual([
      { path: "name", message: "is required" },
      { path: "nested.url", message: "is required" },
    ]);
  });

  it("keep the type a present field should have, a schema's own message, and name unknown fields", () => {
    const errors = checkFields(schema.extend({ mode: z.enum(["a", "b"], { error: "must be a or b" }) }).strict(), { name: 3, count: 1, tags: [], nested: { url: "x" }, mode: "c", extra: true });
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: "name", message: expect.stringMatching(/expected string, received number/) },
        { path: "mode", message: "must be a or b" },
        { path: "extra", message: "is not a known field" },
      ]),
    );
  });
});
