import { z } from "zod";

// The mention service's own settings (declared on its module; the hosts load them with the shared ones).

export const mentionSettingsShape = {
  /**
   * How long a change feed cursor is served after it was issued, in days. An older one answers 410
   * `cursor_expired` with the oldest cursor still served, which starts at most a day before this horizon.
   */
  EARSHOT_CHANGE_FEED_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
};

export const mentionSettingsSchema = z.object(mentionSettingsShape);
export type MentionSettings = z.infer<typeof mentionSettingsSchema>;
export const mentionSettingsOf = (config: unknown): MentionSettings => mentionSettingsSchema.parse(config ?? {});
