import type { ServiceModule } from "@earshot/platform";
import { accountV1 } from "@earshot/proto";
import { accountRpc } from "./rpc/account-rpc";
import { openAccountCollections } from "./store";
import { wireAccount } from "./wiring";

export const ACCOUNT_SERVICE_NAME = "earshot.account.v1.AccountService";

/** The account service, hosted alone (main.ts) or beside the others (all-in-one). */
export const accountService: ServiceModule = {
  name: "account",
  ensureIndexes: async (store) => {
    await openAccountCollections(store);
  },
  open: async (deps) => {
    const collections = await openAccountCollections(deps.store);
    const handlers = accountRpc(wireAccount({ ...deps, collections }));
    return { grpc: [{ name: ACCOUNT_SERVICE_NAME, definition: accountV1.AccountServiceService, handlers }] };
  },
};
