import { isDomainError, newId } from "@earshot/platform";
import { OPERATIONS } from "../catalog";
import { splitInput, validateInput } from "./validate";

const op = (name: string) => {
  const found = OPERATIONS.find((o) => o.name === name);
  if (!found) throw new Error(`no operation ${name}`);
  return found;
};

// Ids of the shape their fields take (a wrong-shaped one would be refused too, and be counted here).
const PROJECT = newId("prj");
const CATEGORY = newId("cat");
const MEMBER = newId("mbr");

const PROTOTYPE_NAMES = ["valueOf", "constructor", "toString", "hasOwnProperty", "__proto__", "isPrototypeOf"];

const fieldErrorsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    if (isDomainError(err)) return err.errors.map((e) => e.path);
    throw err;
  }
  return [];
};

describe("input keys named like Object.prototype members", () => {
  it("keeps them out of the path and query parts and puts them in the body as own fields", () => {
    for (const name of PROTOTYPE_NAMES) {
      const combined = JSON.parse(`{"projectId":"${PROJECT}","${name}":"x","memberType":"invite","memberId":"${MEMBER}"}`) as Record<string, unknown>;
      const parts = splitInput(op("remove_project_member"), combined);
      expect({ name, path: Object.keys(parts.path).sort(), query: Object.keys(parts.query) }).toEqual({ name, path: ["memberId", "projectId"], query: ["memberType"] });
      const body = parts.body as Record<string, unknown>;
      expect({ name, own: Object.hasOwn(body, name), proto: Object.getPrototypeOf(body) === Object.prototype }).toEqual({ name, own: true, proto: true });
    }
  });

  it("refuses them as unknown body fields, naming the field, instead of throwing a TypeError", () => {
    for (const name of PROTOTYPE_NAMES) {
      const combined = JSON.parse(`{"projectId":"${PROJECT}","name":"Renamed","${name}":{"polluted":true}}`) as Record<string, unknown>;
      const request = splitInput(op("update_project"), combined);
      expect({ name, errors: fieldErrorsOf(() => validateInput(op("update_project"), request)) }).toEqual({ name, errors: [name] });
    }
  });
});

describe("multi-valued query parameters", () => {
  const listed = (query: Record<string, unknown>) => validateInput(op("list_mentions"), { path: {}, query: { projectId: PROJECT, ...query }, body: undefined });

  it("reads a comma-separated value, repeats (REST) and an array (MCP) as the same list", () => {
    const expected = { status: ["open", "follow_up"], source: ["x", "reddit"] };
    expect(listed({ status: "open,follow_up", source: "x,reddit" })).toMatchObject(expected);
    expect(listed({ status: ["open", "follow_up"], source: ["x", "reddit"] })).toMatchObject(expected);
    expect(listed({ status: ["open,follow_up"], source: ["x", "reddit"] })).toMatchObject(expected);
  });

  it("names a bad member by its index in the list, and an empty member too", () => {
    expect(fieldErrorsOf(() => listed({ status: "open,closed", sentiment: ["angry"], categoryId: `${CATEGORY},` })).sort()).toEqual(["categoryId.1", "sentiment.0", "status.1"]);
  });

  it("keeps a single-valued parameter whole, commas included", () => {
    expect(listed({ q: "launch, pricing" })).toMatchObject({ q: "launch, pricing" });
  });
});

describe("a field the operation does not take", () => {
  const errorsOf = (fn: () => unknown): Array<{ path: string; message: string }> => {
    try {
      fn();
    } catch (err) {
      if (isDomainError(err)) return err.errors;
      throw err;
    }
    return [];
  };

  it("is refused as a query parameter on every operation, naming it, never ignored", () => {
    for (const operation of OPERATIONS) {
      const errors = errorsOf(() => validateInput(operation, { path: {}, query: { zzqx: "1" }, body: undefined }));
      expect({ op: operation.name, error: errors.find((e) => e.path === "zzqx")?.message }).toEqual({ op: operation.name, error: expect.stringContaining(`is not a query parameter of ${operation.name}`) });
    }
  });

  it("names the parameter a typo is of, on every operation that takes a query", () => {
    for (const operation of OPERATIONS) {
      for (const name of Object.keys(operation.input.query?.shape ?? {})) {
        if (name.length < 4) continue;
        // Two neighbouring letters swapped, the commonest slip.
        const typo = `${name.slice(0, 1)}${name[2]}${name[1]}${name.slice(3)}`;
        if (typo === name) continue;
        const errors = errorsOf(() => validateInput(operation, { path: {}, query: { [typo]: "1" }, body: undefined }));
        expect({ op: operation.name, typo, error: errors.find((e) => e.path === typo)?.message }).toEqual({ op: operation.name, typo, error: expect.stringContaining(`did you mean \`${name}\`?`) });
      }
    }
  });
});
