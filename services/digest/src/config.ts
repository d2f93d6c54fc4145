import { ENCRYPTION_KEY_SETTING, MAIL_SIGNING_SETTINGS, publicUrlSetting } from "@earshot/platform";
import { z } from "zod";

// The digest service's settings. The tick is how often each replica looks for digests due and instant
// alerts allowed (the claims in the store keep replicas from sending twice); instant alerts go out within
// a tick of their first match, so it stays well under a minute.

export const digestSettingsShape = {
  EARSHOT_DIGEST_TICK_SECONDS: z.coerce.number().min(0.05).max(60).default(15),
  /** The origin the emails link to (the edge's setting, read here for links). */
  EARSHOT_PUBLIC_URL: publicUrlSetting,
  /** The key the one-click unsubscribe links' HMAC key is derived from (the edge derives the same to check them). */
  EARSHOT_ENCRYPTION_KEY: ENCRYPTION_KEY_SETTING,
  ...MAIL_SIGNING_SETTINGS,
};

export { publicUrlOf } from "@earshot/platform";
