import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { csvField, csvRecord, protectFormula } from "./csv";

// Export CSV read back by a CSV library: every value survives quoting whole, and a value a spreadsheet
// would run as a formula comes back with the apostrophe that stops it.

const readBack = (text: string): string[][] => parse(text, { relax_column_count: false, record_delimiter: "\r\n" }) as string[][];

describe("export CSV", () => {
  it("quotes a field holding a quote, a comma, CR or LF, doubling its quotes, and leaves others bare", () => {
    expect(csvField("plain text")).toBe("plain text");
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField("line\nbreak")).toBe('"line\nbreak"');
    expect(csvField("carriage\rreturn")).toBe('"carriage\rreturn"');
    expect(csvRecord(["a", "", "c"])).toBe("a,,c\r\n");
  });

  it.each(["=SUM(A1:A9)", "+1", "-1+2", "@cmd", "\tx", "\rx"])("puts an apostrophe before %j so spreadsheets show it as text", (value) => {
    expect(protectFormula(value)).toBe(`'${value}`);
    expect(readBack(csvRecord([value]))).toEqual([[`'${value}`]]);
  });

  it("leaves values that start otherwise as they are, a formula character further in included", () => {
    for (const value of ["a=b", "1-2", "mail@example.com", "'quoted", " =spaced"]) expect(protectFormula(value)).toBe(value);
  });

  it("reads back every record exactly, whatever the values hold", () => {
    const cell = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 30 }),
      fc.string({ unit: fc.constantFrom('"', ",", "\r", "\n", "a", " ", "=", "-", "é", "😀"), maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 5 }), (rows) => {
        const text = rows.map((r) => csvRecord(r)).join("");
        expect(readBack(text)).toEqual(rows.map((r) => r.map(protectFormula)));
      }),
      { seed: 20261123, numRuns: 300 },
    );
  });
});
