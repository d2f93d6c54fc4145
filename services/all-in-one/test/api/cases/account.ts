import { type Cases } from "./support";

export const accountCases: Cases = {
  get_account: {
    happy: async (_h, w) => ({ input: {}, status: 200, check: (b) => expect(b.data).toMatchObject({ id: w.owner.userId, name: "Olive Owner", status: "active" }) }),
    bad: async () => ({ input: {}, fields: [] }),
  },
  update_account: {
    happy: async () => ({ input: { name: "Olive Owner" }, status: 200, check: (b) => expect(b.data).toMatchObject({ name: "Olive Owner" }) }),
    bad: async () => ({ input: { name: "", nickname: "o" }, fields: ["name", "nickname"] }),
  },
  delete_account: {
    happy: async (h) => {
      const throwaway = await h.newActor();
      return { input: { confirmation: "DELETE" }, key: throwaway.key, status: 200, check: (b) => expect(b.data).toMatchObject({ status: "deactivated" }) };
    },
    bad: async () => ({ input: { confirmation: "delete" }, fields: ["confirmation"] }),
  },
};
