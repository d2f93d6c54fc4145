import { countCharacters as charLength } from "@earshot/platform/core";
import { checkProjectFields, isIanaTimezone } from "./project-rules";

describe("project field rules", () => {
  it("counts an emoji icon as one character, as people see it", () => {
    expect(charLength("📡")).toBe(1);
    expect(charLength("👩‍💻")).toBe(1);
    expect(checkProjectFields({ icon: "📡".repeat(10) })).toEqual([]);
    expect(checkProjectFields({ icon: "📡".repeat(11) })).toEqual([{ path: "icon", message: "must be at most 10 characters" }]);
  });

  it("accepts IANA zones and refuses anything else", () => {
    expect(isIanaTimezone("Europe/Paris")).toBe(true);
    expect(isIanaTimezone("UTC")).toBe(true);
    expect(isIanaTimezone("Mars/Olympus_Mons")).toBe(false);
    expect(isIanaTimezone("")).toBe(false);
  });

  it("names every bad field at once", () => {
    const errors = checkProjectFields({ name: " ", description: "x".repeat(501), color: "#12345", enabledSources: ["x", "x", "myspace"], digestTimezone: "Nowhere" });
    expect(errors.map((e) => e.path)).toEqual(["name", "description", "color", "enabledSources.2", "digestTimezone"]);
  });

  it("refuses a source named twice", () => {
    expect(checkProjectFields({ enabledSources: ["x", "reddit", "x"] })).toEqual([{ path: "enabledSources", message: "must not repeat a source" }]);
  });

  it("accepts only zones the runtime knows by their IANA names, and UTC", () => {
    for (const zone of ["Europe/Paris", "UTC", "America/Argentina/Buenos_Aires", "Asia/Kolkata", "Europe/Kyiv"]) {
      expect(checkProjectFields({ digestTimezone: zone })).toEqual([]);
    }
    for (const zone of ["utc", "europe/paris", "Europe/paris", "EST", "Mars/Olympus_Mons", "Europe/Paris "]) {
      expect(checkProjectFields({ digestTimezone: zone }).map((e) => e.path)).toEqual(["digestTimezone"]);
    }
  });

  it("refuses an explicitly empty list of sources", () => {
    expect(checkProjectFields({ enabledSources: [] })).toEqual([{ path: "enabledSources", message: "must name at least one source" }]);
  });
});

describe("project text bounds", () => {
  it("refuses a 300,000-character name, naming the field, and counts no more than the limit", () => {
    expect(checkProjectFields({ name: "n".repeat(300_000) })).toEqual([{ path: "name", message: "must be 1 to 100 characters" }]);
    expect(charLength("n".repeat(300_000), 100)).toBe(101);
  });

  it("refuses a letter under 20,000 combining marks that would otherwise be a 1-character name", () => {
    const zalgo = `a${"\u0301".repeat(20_000)}`;
    expect(checkProjectFields({ name: zalgo, description: zalgo, icon: zalgo }).map((e) => e.path)).toEqual(["name", "description", "icon"]);
    expect(checkProjectFields({ name: zalgo })[0]?.message).toMatch(/combining marks/);
  });

  it("counts 100 flags as a 100-character name, like the edge does", () => {
    expect(checkProjectFields({ name: "🇫🇷".repeat(100) })).toEqual([]);
    expect(checkProjectFields({ name: "🇫🇷".repeat(101) })).toEqual([{ path: "name", message: "must be 1 to 100 characters" }]);
  });

  it("caps a name's bytes at 16 per character on average", () => {
    expect(checkProjectFields({ name: "👨‍👩‍👧‍👦".repeat(64) })).toEqual([]);
    expect(checkProjectFields({ name: "👨‍👩‍👧‍👦".repeat(65) })).toEqual([{ path: "name", message: "must be at most 1600 bytes of UTF-8" }]);
  });
});
