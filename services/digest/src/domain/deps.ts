import type { Clock, Logger, Mailer } from "@earshot/platform/core";
import type { DigestCollections } from "../store";

export interface DigestDeps {
  collections: DigestCollections;
  clock: Clock;
  logger: Logger;
  mailer: Mailer;
  /** The origin people open links at (`EARSHOT_PUBLIC_URL`). */
  publicUrl: string;
  /** Signs each email's one-click unsubscribe link (derived from EARSHOT_ENCRYPTION_KEY; the edge checks it). */
  linkKey: Buffer;
}
