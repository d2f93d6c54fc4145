import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { redirectUriProblem, validateClientMetadata } from "./client-rules";

const errorOf = (metadata: unknown): string | undefined => {
  try {
    validateClientMetadata(metadata);
    return undefined;
  } catch (err) {
    if (err instanceof OAuthError) return err.errorCode;
    throw err;
  }
};

describe("client metadata rules", () => {
  it.each(["https://client.example/cb", "http://localhost:3000/cb", "http://127.0.0.1/cb", "http://[::1]:9/cb", "cursor://anysphere.cursor-retrieval/oauth/callback", "com.example.app:/oauth2redirect"])(
    "accepts the redirect URI %s",
    (uri) => expect(redirectUriProblem(uri)).toBeUndefined(),
  );

  it.each([
    ["http://client.example/cb", "http only"],
    ["http://127.0.0.2/cb", "http only"],
    ["https://client.example/cb#x", "fragment"],
    ["https://client.example/cb#", "fragment"],
    ["https://a:b@client.example/cb", "user information"],
    ["cb", "absolute"],
    ["javascript:alert(1)", "javascript:"],
    ["data:text/html,hi", "data:"],
    ["file:///tmp/x", "file:"],
  ])("refuses the redirect URI %s (%s)", (uri, why) => expect(redirectUriProblem(uri)).toContain(why));

  it("applies to any metadata object, registrations and documents alike", () => {
    expect(errorOf({ redirect_uris: ["https://client.example/cb"], client_name: "ok" })).toBeUndefined();
    expect(errorOf({ redirect_uris: ["https://client.example/cb"], client_name: "é".repeat(200) })).toBeUndefined();
    expect(errorOf({ redirect_uris: ["https://client.example/cb"], client_name: "é".repeat(201) })).toBe("invalid_client_metadata");
    expect(errorOf({ redirect_uris: "https://client.example/cb" })).toBe("invalid_redirect_uri");
    expect(errorOf({ redirect_uris: [42] })).toBe("invalid_redirect_uri");
    expect(errorOf([])).toBe("invalid_client_metadata");
    expect(errorOf(null)).toBe("invalid_client_metadata");
    expect(errorOf({ redirect_uris: ["https://client.example/cb"], grant_types: Array(11).fill("x") })).toBe("invalid_client_metadata");
    expect(errorOf({ redirect_uris: ["https://client.example/cb"], tos_uri: `https://client.example/${"t".repeat(2000)}` })).toBe("invalid_client_metadata");
  });
});
