import type { Clock, Outbox } from "@earshot/platform";
import type { AccountCollections } from "../store";

export interface AccountDeps {
  collections: AccountCollections;
  outbox: Outbox;
  clock: Clock;
}

export const SOURCE = "earshot/account";
