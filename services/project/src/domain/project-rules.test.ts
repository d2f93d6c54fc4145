import { charLength, checkProjectFields, isIanaTimezone } from "./project-rules";

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
    expect(errors.map((e) => e.path)).toEqual(["name", "description", "color", "enabledSources.2", "enabledSources", "digestTimezone"]);
  });

  it("refuses an explicitly empty list of sources", () => {
    expect(checkProjectFields({ enabledSources: [] })).toEqual([{ path: "enabledSources", message: "must name at least one source" }]);
  });
});
