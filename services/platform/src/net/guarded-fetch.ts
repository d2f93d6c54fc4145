import { lookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { Agent, request } from "undici";
import { classifyAddress, isPublicAddress, normalizeAddress } from "./address-policy";

// Fetching a URL a stranger chose (server-side request forgery risk): the host is resolved once, every
// resolved address must be public, and the connection goes to the checked address itself (a lookup
// that hands back the pinned address), so a second DNS answer cannot swap in another one. TLS and
// Host still name the hostname. No redirects, a timeout and a size cap.

export type Resolver = (hostname: string) => Promise<string[]>;

export class AddressNotAllowedError extends Error {
  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(`${hostname} resolves to a non-public address (${address}: ${reason})`);
    this.name = "AddressNotAllowedError";
  }
}

/** The host has no address: DNS knows no such name (or could not answer; `code` says which). */
export class UnresolvableHostError extends Error {
  constructor(
    readonly hostname: string,
    /** The resolver's code: ENOTFOUND and ENODATA mean no such name, EAI_AGAIN a failure worth retrying. */
    readonly code: string,
  ) {
    super(`${hostname} does not resolve (${code})`);
    this.name = "UnresolvableHostError";
  }
}

/**
 * Plain http is cleartext: it goes only to a receiver on the operator's own network (non-public addresses,
 * which `allowPrivateNetworks` lets through), never across the internet.
 */
export class PlainHttpError extends Error {
  constructor(
    readonly hostname: string,
    /** The public address the host resolves to. */
    readonly address: string,
  ) {
    super(`http://${hostname} reaches the public address ${address}: plain http goes only to private or loopback addresses`);
    this.name = "PlainHttpError";
  }
}

export class GuardedFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GuardedFetchError";
  }
}

export interface AddressGuardOptions {
  /** Resolves a hostname to all its addresses; the system resolver by default (tests inject one). */
  resolve?: Resolver;
  /** Lets private, loopback and other non-public addresses through: for tests and closed self-hosted networks only. */
  allowPrivateNetworks?: boolean;
}

/** Resolver codes that mean the name does not resolve (as opposed to a resolver that failed). */
const NO_SUCH_NAME = new Set(["ENOTFOUND", "ENODATA", "EAI_NONAME", "EAI_NODATA"]);

export const systemResolver: Resolver = async (hostname) => {
  // `.invalid` never resolves (RFC 6761 6.4, which asks resolvers to answer so at once): no query is sent,
  // so the answer does not depend on the network.
  if (/\.invalid\.?$/i.test(hostname) || /^invalid\.?$/i.test(hostname)) throw new UnresolvableHostError(hostname, "ENOTFOUND");
  return (await lookup(hostname, { all: true, verbatim: true })).map((r) => r.address);
};

const resolveHost = async (resolve: Resolver, host: string): Promise<string[]> => {
  try {
    return await resolve(host);
  } catch (err) {
    if (err instanceof UnresolvableHostError) throw err;
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && (NO_SUCH_NAME.has(code) || code.startsWith("EAI_"))) throw new UnresolvableHostError(host, code);
    throw err;
  }
};

/** Whether a resolver's failure says the name does not exist, rather than that it could not be asked. */
export const isNoSuchHost = (err: UnresolvableHostError): boolean => NO_SUCH_NAME.has(err.code);

/** Resolves a hostname (or takes an IP literal) and checks every address; returns the checked addresses. */
export const resolvePublicAddresses = async (hostname: string, options: AddressGuardOptions = {}): Promise<string[]> => {
  const host = hostname.replace(/^\[|\]$/g, "");
  // `localhost` and its subdomains are loopback by definition (RFC 6761), whatever a resolver answers.
  if (!options.allowPrivateNetworks && /(^|\.)localhost\.?$/i.test(host)) throw new AddressNotAllowedError(hostname, host, "loopback (localhost)");
  const literal = normalizeAddress(host);
  const addresses = literal !== undefined ? [literal] : await resolveHost(options.resolve ?? systemResolver, host);
  if (addresses.length === 0) throw new GuardedFetchError(`${hostname} has no addresses`);
  const checked = addresses.map((a) => classifyAddress(a));
  for (const verdict of checked) {
    if (!verdict.public && !options.allowPrivateNetworks) throw new AddressNotAllowedError(hostname, verdict.address, verdict.reason ?? "not public");
    if (verdict.reason === "not an IP address") throw new GuardedFetchError(`${hostname} resolved to something that is not an address`);
  }
  return checked.map((v) => v.address);
};

/**
 * The addresses a URL may be reached at: an http or https URL whose host passes resolvePublicAddresses, and
 * for plain http, whose every address is non-public (so only with `allowPrivateNetworks`); see PlainHttpError.
 */
export const resolveUrlAddresses = async (url: URL, options: AddressGuardOptions = {}): Promise<string[]> => {
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new GuardedFetchError(`${url.protocol} URLs are not fetched`);
  const addresses = await resolvePublicAddresses(url.hostname, options);
  const publicOne = url.protocol === "http:" ? addresses.find((a) => isPublicAddress(a)) : undefined;
  if (publicOne !== undefined) throw new PlainHttpError(url.hostname, publicOne);
  return addresses;
};

export interface GuardedFetchOptions extends AddressGuardOptions {
  timeoutMs?: number;
  maxBytes?: number;
  headers?: Record<string, string>;
}

export interface GuardedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A lookup that answers every query with the address already checked (no second resolution). */
const pinnedLookup = (address: string): LookupFunction => {
  const family = isIP(address);
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
};

export interface GuardedRequestOptions extends GuardedFetchOptions {
  method?: "GET" | "POST";
  body?: string;
  /**
   * The certificate authorities to trust instead of the system's (PEM): for a closed network's own CA.
   * NODE_EXTRA_CA_CERTS, read at process start, adds to the system's instead.
   */
  ca?: string | string[];
  /** Keep the first `maxBytes` of a longer body instead of refusing it (a webhook receiver's answer). */
  truncate?: boolean;
  /**
   * Follow up to this many redirects of a GET (default 0: a redirect is an error). Each hop's URL is
   * resolved and checked like the first, so a redirect cannot lead to an address the first could not.
   */
  maxRedirects?: number;
  /**
   * Reuse connections: a request goes over an idle connection to the same origin at the same checked address
   * (with the same CA and time limit) when there is one. Every request still resolves and checks the host
   * first, and a host that now resolves elsewhere gets a connection of its own. Webhook deliveries use it:
   * without it each one pays a new TCP connection and TLS handshake.
   */
  keepAlive?: boolean;
}

/** Connection pools kept for `keepAlive` requests, least recently used first; idle connections close by themselves. */
const pools = new Map<string, Agent>();
const MAX_POOLS = 64;

const pooledAgent = (key: string, make: () => Agent): Agent => {
  const known = pools.get(key);
  if (known) {
    pools.delete(key);
    pools.set(key, known);
    return known;
  }
  const agent = make();
  pools.set(key, agent);
  if (pools.size > MAX_POOLS) {
    const [oldestKey, oldest] = pools.entries().next().value as [string, Agent];
    pools.delete(oldestKey);
    void oldest.close().catch(() => undefined);
  }
  return agent;
};

/** GET `url` from a public address only; refuses redirects, bodies over `maxBytes` and slow servers. */
export const guardedFetch = (url: string | URL, options: GuardedFetchOptions = {}): Promise<GuardedResponse> => guardedRequest(url, options);

/**
 * A request to `url` at a checked, pinned address: GET, or POST with a body (webhook deliveries). TLS is
 * verified against the hostname; a redirect is an error, never followed; `timeoutMs` bounds the connect,
 * the headers and the body alike.
 */
export const guardedRequest = async (url: string | URL, options: GuardedRequestOptions = {}): Promise<GuardedResponse> => {
  let target = new URL(url);
  for (let hops = options.maxRedirects ?? 0; ; hops--) {
    const res = await requestOnce(target, options, hops > 0);
    if (!("location" in res)) return res;
    target = res.location;
  }
};

/** One request; a redirect it may follow comes back as the location to go to next. */
const requestOnce = async (target: URL, options: GuardedRequestOptions, follow: boolean): Promise<GuardedResponse | { location: URL }> => {
  const [address] = await resolveUrlAddresses(target, options);
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxBytes = options.maxBytes ?? 64 * 1024;
  const connect = { lookup: pinnedLookup(address as string), timeout: timeoutMs, ...(options.ca ? { ca: options.ca } : {}) };
  const make = () => new Agent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const ca = options.ca === undefined ? "" : ([] as string[]).concat(options.ca).join("\n");
  const agent = options.keepAlive ? pooledAgent(`${target.origin}|${address as string}|${timeoutMs}|${ca}`, make) : make();
  try {
    const res = await request(target, {
      method: options.method ?? "GET",
      dispatcher: agent,
      headers: options.headers ?? {},
      ...(options.body !== undefined ? { body: options.body } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
    // 304 Not Modified answers a conditional GET: not a redirect, and without a body.
    if (res.statusCode >= 300 && res.statusCode < 400 && res.statusCode !== 304) {
      await res.body.dump();
      const location = res.headers.location;
      if (follow && typeof location === "string" && (options.method ?? "GET") === "GET") return { location: new URL(location, target) };
      throw new GuardedFetchError(`${target.href} redirects (${res.statusCode}); ${follow ? "without a Location" : "redirects are not followed"}`);
    }
    const declared = Number(res.headers["content-length"] ?? 0);
    if (declared > maxBytes && !options.truncate) {
      await res.body.dump();
      throw new GuardedFetchError(`${target.href} is larger than ${maxBytes} bytes`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      const bytes = chunk as Buffer;
      if (size + bytes.length > maxBytes) {
        res.body.destroy();
        if (!options.truncate) throw new GuardedFetchError(`${target.href} is larger than ${maxBytes} bytes`);
        chunks.push(bytes.subarray(0, maxBytes - size));
        size = maxBytes;
        break;
      }
      size += bytes.length;
      chunks.push(bytes);
    }
    return { status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") };
  } finally {
    if (!options.keepAlive) await agent.close().catch(() => undefined);
  }
};
