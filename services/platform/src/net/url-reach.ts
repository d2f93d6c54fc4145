import {
  AddressNotAllowedError,
  type AddressGuardOptions,
  isNoSuchHost,
  PlainHttpError,
  resolveUrlAddresses,
  UnresolvableHostError,
} from "./guarded-fetch";
import { z } from "zod";

// Where a URL Earshot will fetch or post to may lead (a webhook receiver, a feed), said to the API user when it is saved: the platform's outbound
// rule (resolveUrlAddresses, which the delivery worker applies again at every connection), each refusal in
// words that say what to change, or that the operator can change it. The URL's syntax is the field rule's
// (fields.ts), checked before this.

/** The setting that lets webhook endpoints and feeds reach private networks (and plain http reach them): named in refusals. */
export const ALLOW_PRIVATE_SETTING = "EARSHOT_WEBHOOK_ALLOW_PRIVATE_NETWORKS";

/**
 * `true` lets webhook endpoints and feeds reach loopback, private and other non-public addresses (and plain
 * http there): tests and closed networks only. One schema object, so every service declaring it agrees.
 */
export const ALLOW_PRIVATE_NETWORKS_SETTING = z.preprocess(
  // A host hands a service its configuration already loaded: the word, or the boolean it became.
  (v) => (v === "true" ? true : v === "false" ? false : v),
  z.boolean({ message: "must be true or false" }).default(false),
);

const OPERATOR_CAN_ALLOW = `the operator can allow private networks with ${ALLOW_PRIVATE_SETTING}=true`;

/** Whether the URL's host is the address itself (an IP literal, bracketed when IPv6). */
const sameAddress = (hostname: string, address: string): boolean => hostname.replace(/^\[|\]$/g, "") === address;

/** The refusal of a URL that does not pass the outbound rule, as the `url` field's message. */
export const reachRefusal = (err: unknown, guard: AddressGuardOptions): string | undefined => {
  if (err instanceof UnresolvableHostError) {
    return isNoSuchHost(err)
      ? `must name a host that resolves: ${err.hostname} is not known to DNS`
      : `must name a host that resolves: looking up ${err.hostname} failed (${err.code}); try again`;
  }
  if (err instanceof PlainHttpError) {
    const where = sameAddress(err.hostname, err.address) ? `${err.address} is a public address` : `${err.hostname} resolves to the public address ${err.address}`;
    return guard.allowPrivateNetworks
      ? `must be an https URL: plain http is accepted only for a receiver on a private or loopback address, and ${where}`
      : `must be an https URL: plain http is accepted only for a receiver on a private or loopback address, where ${OPERATOR_CAN_ALLOW}`;
  }
  if (err instanceof AddressNotAllowedError) {
    const where = sameAddress(err.hostname, err.address) ? err.address : `${err.hostname} (${err.address})`;
    return `must reach a public address: ${where} is ${err.reason}; ${OPERATOR_CAN_ALLOW}`;
  }
  return undefined;
};

/** Why the URL may not be used (the `url` field's message), or undefined when the outbound rule lets it through. */
export const urlRefusal =
  (guard: AddressGuardOptions) =>
  async (url: string): Promise<string | undefined> => {
    try {
      await resolveUrlAddresses(new URL(url), guard);
      return undefined;
    } catch (err) {
      const refusal = reachRefusal(err, guard);
      if (refusal !== undefined) return refusal;
      return `cannot be reached: ${err instanceof Error ? err.message : String(err)}`;
    }
  };
