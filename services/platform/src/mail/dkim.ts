import { createPrivateKey } from "node:crypto";
import { z } from "zod";
import { secret } from "../settings";

// DKIM signing of the mail Earshot sends, when its relay does not sign for it. Mail providers honour a
// one-click unsubscribe (RFC 8058) only on a message whose DKIM signature covers `List-Unsubscribe` and
// `List-Unsubscribe-Post`; they also weigh DKIM for delivery. Every service that sends mail (project:
// invitations; digest: alerts; delivery: failing endpoints; integration: failing feeds) declares these
// settings, one schema object, so the hosts load them once.

export const MAIL_SIGNING_SETTINGS = {
  /** The signing domain (`d=`), e.g. earshot.example.com; with the selector and the key, or none of the three. */
  EARSHOT_DKIM_DOMAIN: z
    .string()
    .regex(/^(?=.{1,253}$)([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/, "must be a domain name such as earshot.example.com")
    .optional(),
  /** The selector (`s=`): the public key is published as TXT at `<selector>._domainkey.<domain>`. */
  EARSHOT_DKIM_SELECTOR: z
    .string()
    .regex(/^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62})$/, "must be a DNS label such as earshot1")
    .optional(),
  EARSHOT_DKIM_PRIVATE_KEY: secret(z.string().min(1).optional(), {
    note: "The DKIM private key (PEM, RSA of 1024 bits or more) outgoing mail is signed with, with EARSHOT_DKIM_DOMAIN and EARSHOT_DKIM_SELECTOR; leave all three unset when the mail relay signs.",
  }),
};

export interface DkimSigning {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/** The headers signed: the usual ones (nodemailer's list) and RFC 8058's, so one-click unsubscribe is honoured. */
export const DKIM_SIGNED_HEADERS = [
  "From",
  "Sender",
  "Reply-To",
  "Subject",
  "Date",
  "Message-ID",
  "To",
  "Cc",
  "MIME-Version",
  "Content-Type",
  "Content-Transfer-Encoding",
  "In-Reply-To",
  "References",
  "List-Id",
  "List-Unsubscribe",
  "List-Unsubscribe-Post",
].join(":");

/**
 * The signing the settings ask for, or undefined when none is configured. Half a configuration, or a key
 * that is not a private key, stops the start with the setting named, not the first mail.
 */
export const dkimFromSettings = (settings: Record<string, unknown>): DkimSigning | undefined => {
  const domainName = settings.EARSHOT_DKIM_DOMAIN as string | undefined;
  const keySelector = settings.EARSHOT_DKIM_SELECTOR as string | undefined;
  const privateKey = settings.EARSHOT_DKIM_PRIVATE_KEY as string | undefined;
  const given = [domainName, keySelector, privateKey].filter((v) => v !== undefined).length;
  if (given === 0) return undefined;
  if (!domainName || !keySelector || !privateKey) {
    throw new Error("EARSHOT_DKIM_DOMAIN, EARSHOT_DKIM_SELECTOR and EARSHOT_DKIM_PRIVATE_KEY go together: set all three, or none");
  }
  let key;
  try {
    key = createPrivateKey(privateKey);
  } catch {
    throw new Error("EARSHOT_DKIM_PRIVATE_KEY must be a private key in PEM form");
  }
  if (key.asymmetricKeyType !== "rsa" || (key.asymmetricKeyDetails?.modulusLength ?? 0) < 1024) {
    throw new Error("EARSHOT_DKIM_PRIVATE_KEY must be an RSA key of 1024 bits or more");
  }
  return { domainName, keySelector, privateKey };
};
