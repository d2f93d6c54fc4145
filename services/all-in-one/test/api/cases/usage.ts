import { type Cases } from "./support";

export const usageCases: Cases = {
  get_usage: {
    happy: async () => ({
      input: {},
      status: 200,
      check: (b) =>
        expect(b.data).toMatchObject({
          plan: "free",
          limits: { projects: { allowance: 10 }, keywords: { allowance: 100 }, mentionsThisMonth: { allowance: null, used: expect.any(Number) } },
        }),
    }),
    bad: async () => ({ input: {}, fields: [] }),
  },
};
