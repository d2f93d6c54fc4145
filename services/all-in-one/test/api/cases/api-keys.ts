import { type Cases } from "./support";

export const apiKeysCases: Cases = {
  list_api_keys: {
    happy: async () => ({ input: { limit: 1 }, status: 200, check: (b) => expect((b.meta as { nextCursor: string | null }).nextCursor).toEqual(expect.any(String)) }),
    bad: async () => ({ input: { cursor: "garbage" }, fields: ["cursor"] }),
  },
  create_api_key: {
    happy: async () => ({
      input: { name: "CI", scopes: ["projects:read"] },
      status: 201,
      check: (b) => expect(b.data).toMatchObject({ key: expect.stringMatching(/^svc_sk_[A-Za-z0-9_-]{43}$/), readOnly: true, scopes: ["projects:read"] }),
    }),
    bad: async () => ({ input: { scopes: ["projects:admin"], expiresAt: "tomorrow" }, fields: ["scopes.0", "expiresAt"] }),
  },
  revoke_api_key: {
    happy: async (h, w) => {
      const created = await h.call("create_api_key", { scopes: ["projects:read"] }, w.owner.key);
      return { input: { keyId: (created.body.data as { id: string }).id }, status: 200, check: (b) => expect(b.data).toMatchObject({ revokedAt: expect.any(String) }) };
    },
    bad: async () => ({ input: { keyId: "k".repeat(65) }, fields: ["keyId"] }),
    foreign: async (h, w) => {
      const created = await h.call("create_api_key", { scopes: ["projects:read"] }, w.stranger.key);
      return { foreign: { input: { keyId: (created.body.data as { id: string }).id } }, missing: { input: { keyId: "key_01JZZZZZZZZZZZZZZZZZZZZZZZ" } } };
    },
  },
};
