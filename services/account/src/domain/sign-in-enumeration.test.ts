import type { Collection, Doc } from "@earshot/platform/core";
import { type AccountWorld, newUser, openAccountWorld, refusalOf } from "../test-support";
import { scryptHasher } from "./password";
import { authenticate } from "./users";

// Whether an email has an account must not show in a refused sign-in: not in the answer, not in the
// work done for it. Each case runs in a world of its own with a recording hasher, pause and store, and
// the trace of the attempt under test is compared between a known and an unknown email. (How long the
// two take is measured in bench/sign-in-bench.ts, never asserted here.)

const KNOWN = "ana@example.com";
const UNKNOWN = "nobody@example.com";
const WRONG = "not the password";
const GUESSER = "203.0.113.9";

/** Records every call of the collection's methods as `<name>.<method>`. */
const recording = <T extends Doc>(collection: Collection<T>, name: string, trace: string[]): Collection<T> =>
  new Proxy(collection, {
    get: (target, prop, receiver) => {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        trace.push(`${name}.${String(prop)}`);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });

/** A world whose password checks (with the cost parameters of the hash checked against), holds and store calls are traced. */
const tracedWorld = async () => {
  const trace: string[] = [];
  const world = await openAccountWorld({
    passwords: {
      hash: scryptHasher.hash,
      verify: async (password, stored) => {
        trace.push(`verify ${stored.split("$").slice(0, 4).join("$")}`);
        return scryptHasher.verify(password, stored);
      },
    },
  });
  const pause = world.deps.pause;
  world.deps.pause = async (ms) => {
    trace.push(`hold ${ms}`);
    return pause(ms);
  };
  world.deps.collections.users = recording(world.deps.collections.users, "users", trace);
  world.deps.collections.signInFailures = recording(world.deps.collections.signInFailures, "signInFailures", trace);
  return { world, trace };
};

/** What happened before the attempt under test, for its email. */
const SITUATIONS: Record<string, (world: AccountWorld, email: string) => Promise<void>> = {
  "not throttled": async () => undefined,
  // Guessed from 2 other addresses 5 times each: the email's ceiling holds every attempt.
  "held by the email's ceiling": async (world, email) => {
    for (const from of ["192.0.2.1", "192.0.2.2"]) for (let i = 0; i < 5; i++) await refusalOf(authenticate(world.deps, email, WRONG, from));
  },
  // Guessed from this address 5 times: the pair refuses.
  "refused for the pair": async (world, email) => {
    for (let i = 0; i < 5; i++) await refusalOf(authenticate(world.deps, email, WRONG, GUESSER));
  },
};

const attempt = async (situation: string, email: string) => {
  const { world, trace } = await tracedWorld();
  await newUser(world, KNOWN);
  await SITUATIONS[situation]!(world, email);
  trace.length = 0;
  const refusal = await refusalOf(authenticate(world.deps, email, WRONG, GUESSER));
  return { answer: { code: refusal.code, message: refusal.message, details: refusal.details }, trace: [...trace] };
};

describe("a refused sign-in for a known and an unknown email", () => {
  it.each(Object.keys(SITUATIONS))("answers the same and does the same work when %s", async (situation) => {
    const known = await attempt(situation, KNOWN);
    const unknown = await attempt(situation, UNKNOWN);
    expect(unknown).toEqual(known);
  });

  it("checks a hash of the same cost when not refused, holds when held, and checks none when refused", async () => {
    const [fresh, held, refused] = await Promise.all(Object.keys(SITUATIONS).map((s) => attempt(s, UNKNOWN)));
    expect(fresh!.answer).toEqual({ code: "unauthorized", message: "Email or password is wrong.", details: {} });
    expect(fresh!.trace.filter((t) => !t.startsWith("signInFailures."))).toEqual(["users.findOne", "verify scrypt$16384$8$1"]);
    expect(held!.answer).toEqual(fresh!.answer);
    expect(held!.trace.filter((t) => !t.startsWith("signInFailures."))).toEqual(["hold 250", "users.findOne", "verify scrypt$16384$8$1"]);
    expect(refused!.answer).toEqual({ code: "rate_limited", message: "Too many sign-in attempts. Try again in 1 second.", details: { retryAfter: 1 } });
    expect(refused!.trace).toEqual(["signInFailures.findById"]);
  });
});
