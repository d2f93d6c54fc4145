import { ENCRYPTION_KEY_SETTING } from "@earshot/platform";
import { z } from "zod";

// The webhook service's settings. The private-networks switch is shared with the delivery service (one
// schema object, so the hosts load it once): the same rule decides at registration and at each connection.

/** `true` lets endpoints on loopback, private and other non-public addresses through: tests and closed networks only. */
export const ALLOW_PRIVATE_NETWORKS_SETTING = z.preprocess(
  // A host hands a service its configuration already loaded: the word, or the boolean it became.
  (v) => (v === "true" ? true : v === "false" ? false : v),
  z.boolean({ message: "must be true or false" }).default(false),
);

export const webhookSettingsShape = {
  EARSHOT_ENCRYPTION_KEY: ENCRYPTION_KEY_SETTING,
  EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: ALLOW_PRIVATE_NETWORKS_SETTING,
};

export const webhookSettingsSchema = z.object(webhookSettingsShape);
export type WebhookSettings = z.infer<typeof webhookSettingsSchema>;
export const webhookSettingsOf = (config: unknown): WebhookSettings => webhookSettingsSchema.parse(config ?? {});
