import { ALLOW_PRIVATE_NETWORKS_SETTING, ENCRYPTION_KEY_SETTING, MAIL_SIGNING_SETTINGS, publicUrlSetting } from "@earshot/platform";
import { z } from "zod";

// The webhook service's settings, for its two deployables. The `webhook` API's: the encryption key (it
// seals signing secrets) and the private-networks switch; the `delivery` worker's: the same two (one schema
// object each, so a host loading both deployables loads each once: the same rule decides at registration
// and at each connection), the retry schedule and the receivers' CAs. The retry schedule is at once, then
// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after each failure; EARSHOT_WEBHOOK_RETRY_SCHEDULE
// (seconds, comma-separated, the first being the first attempt's delay) replaces it, for tests.

/** The store both deployables open. */
export const WEBHOOK_STORE = "webhook";

export { ALLOW_PRIVATE_NETWORKS_SETTING };

export const webhookSettingsShape = {
  EARSHOT_ENCRYPTION_KEY: ENCRYPTION_KEY_SETTING,
  EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: ALLOW_PRIVATE_NETWORKS_SETTING,
};

export const webhookSettingsSchema = z.object(webhookSettingsShape);
export type WebhookSettings = z.infer<typeof webhookSettingsSchema>;
export const webhookSettingsOf = (config: unknown): WebhookSettings => webhookSettingsSchema.parse(config ?? {});

export const DEFAULT_RETRY_SCHEDULE = [0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];

const schedule = z
  // A host hands a service its configuration already loaded: the text, or the delays it became.
  .union([z.string(), z.array(z.number())])
  .default(DEFAULT_RETRY_SCHEDULE.join(","))
  .transform((value, ctx) => {
    const parts = (Array.isArray(value) ? value.map(String) : value.split(",")).map((p) => p.trim());
    const seconds = parts.map(Number);
    if (parts.length === 0 || parts.length > 50 || seconds.some((s, i) => parts[i] === "" || !Number.isFinite(s) || s < 0 || s > 7 * 86400)) {
      ctx.addIssue({ code: "custom", message: "must be 1 to 50 comma-separated delays in seconds (0 to 604800), such as 0,1,2" });
      return z.NEVER;
    }
    return seconds;
  });

export const deliverySettingsShape = {
  EARSHOT_ENCRYPTION_KEY: ENCRYPTION_KEY_SETTING,
  // It mails the workspace owner about an endpoint deactivated after failing.
  ...MAIL_SIGNING_SETTINGS,
  EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: ALLOW_PRIVATE_NETWORKS_SETTING,
  EARSHOT_WEBHOOK_RETRY_SCHEDULE: schedule,
  /**
   * A PEM file of the CAs to trust for receivers instead of the system's: a closed network with its own CA,
   * or a test's receiver. NODE_EXTRA_CA_CERTS (read at process start) adds a CA to the system's instead.
   */
  EARSHOT_WEBHOOK_CA_FILE: z.string().min(1).optional(),
  /** The origin the API is at (the edge's setting): a project's share URL in a payload is on it. */
  EARSHOT_PUBLIC_URL: publicUrlSetting,
};

export const deliverySettingsSchema = z.object(deliverySettingsShape);
export type DeliverySettings = z.infer<typeof deliverySettingsSchema>;
export const deliverySettingsOf = (config: unknown): DeliverySettings => deliverySettingsSchema.parse(config ?? {});
