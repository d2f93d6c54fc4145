import { isEmailAddress } from "./email";

describe("email addresses", () => {
  it("accepts an ordinary address and refuses one without a dotted domain", () => {
    expect(isEmailAddress("ana@example.com")).toBe(true);
    expect(isEmailAddress("ana@example")).toBe(false);
    expect(isEmailAddress("ana example@example.com")).toBe(false);
  });

  it("refuses an address over 254 bytes before running the pattern on it", () => {
    const test = jest.spyOn(RegExp.prototype, "test");
    try {
      expect(isEmailAddress(`a@${"a.".repeat(150_000)}@`)).toBe(false);
      expect(isEmailAddress(`${"é".repeat(126)}@example.com`)).toBe(false);
      expect(test).not.toHaveBeenCalled();
    } finally {
      test.mockRestore();
    }
  });
});
