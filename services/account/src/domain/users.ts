import {
  checkFields,
  conflict,
  DomainError,
  type FieldError,
  isEmailAddress,
  isUniqueViolation,
  newId,
  notFound,
  validationFailed,
  withVersionRetry,
} from "@earshot/platform/core";
import { z } from "zod";
import { isSignInPasswordSize, userFields } from "../fields";
import { userCreatedEvent, userDeactivatedEvent, userReactivatedEvent, userUpdatedEvent } from "../events";
import { USERS, type UserDoc, WORKSPACES, type WorkspaceDoc } from "../store";
import { type AccountDeps, nextVersion, workspaceOf } from "./deps";
import { addressKey, emailKey, forgetStale, pairKey, reserveAttempt, settleSuccess } from "./sign-in-throttle";
import { DEFAULT_PLAN } from "./plans";

// Users and the workspace each one owns. Emails are stored lower-cased and trimmed, so uniqueness and
// sign-in ignore case; display names are trimmed and counted in user-perceived characters, bounded the
// same way as at the edge.

export type { AccountDeps } from "./deps";

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

const emailSchema = z.object({ email: userFields.email });
const nameSchema = z.object({ name: userFields.name });
const passwordSchema = z.object({ password: userFields.password });

export const checkEmail = (email: string): FieldError[] => checkFields(emailSchema, { email });
export const checkName = (name: string): FieldError[] => checkFields(nameSchema, { name });
export const checkPassword = (password: string): FieldError[] => checkFields(passwordSchema, { password });

export interface CreateUserInput {
  email: string;
  name: string;
  password: string;
}

export interface UserWithWorkspace {
  user: UserDoc;
  workspace: WorkspaceDoc;
}

const emailTaken = () => conflict("A user with this email already exists.");

/** Registers a user and the workspace they own (plan `free`); emits `user.created`. */
export const createUser = async (deps: AccountDeps, input: CreateUserInput): Promise<UserWithWorkspace> => {
  const errors = [...checkEmail(input.email), ...checkName(input.name), ...checkPassword(input.password)];
  if (errors.length > 0) throw validationFailed(errors);
  const email = normalizeEmail(input.email);
  // A cheap early answer; the unique index below is what actually decides a race.
  if (await deps.collections.users.findOne({ email })) throw emailTaken();
  const now = deps.clock.now();
  const userId = newId("usr", now.getTime());
  const workspace: WorkspaceDoc = { _id: newId("wsp", now.getTime()), ownerId: userId, plan: DEFAULT_PLAN, createdAt: now, _v: 1 };
  const user: UserDoc = {
    _id: userId,
    email,
    name: input.name.trim(),
    passwordHash: await deps.passwords.hash(input.password),
    workspaceId: workspace._id,
    status: "active",
    createdAt: now,
    updatedAt: now,
    _v: 1,
  };
  try {
    await deps.outbox.commit(
      [
        { kind: "insert", collection: WORKSPACES, doc: workspace },
        { kind: "insert", collection: USERS, doc: user },
      ],
      [userCreatedEvent(user)],
    );
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken();
    throw err;
  }
  return { user, workspace };
};

/** Reads a user by id or email (id wins when both are given), with their workspace. */
export const getUser = async (deps: AccountDeps, by: { id?: string | undefined; email?: string | undefined }): Promise<UserWithWorkspace> => {
  if (!by.id && !by.email) throw validationFailed([{ path: "id", message: "id or email is required" }]);
  const user = by.id ? await deps.collections.users.findById(by.id) : await deps.collections.users.findOne({ email: normalizeEmail(by.email ?? "") });
  if (!user) throw notFound("User");
  return { user, workspace: await workspaceOf(deps, user) };
};

// Checked when the email is unknown, so a miss costs the same scrypt time as a wrong password and the
// answer's timing does not reveal which addresses have accounts. Same parameters as hashPassword.
export const DECOY_PASSWORD_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

const CLIENT_ADDRESS_MAX = 64;
// Attempts without an address (no caller sends none today) share one pair per email, and no address key.
const UNKNOWN_ADDRESS = "unknown";

/**
 * Email and password sign-in. One message for an unknown email and a wrong password. Throttled per
 * (email, client address), per address and per email (`sign-in-throttle.ts`): refused with
 * `rate_limited` and `retryAfter`, without the password being checked, while the pair or the address
 * has to wait; held before the check while the email is much guessed, never refused for it.
 * An unknown email goes the same way as a known one: the same throttle keys, the same hold, a decoy
 * hash of the same cost, the same answer; only attempts the throttle admits cost a hash.
 */
export const authenticate = async (deps: AccountDeps, email: string, password: string, clientAddress?: string): Promise<UserDoc> => {
  if (clientAddress !== undefined && clientAddress.length > CLIENT_ADDRESS_MAX) {
    throw validationFailed([{ path: "clientAddress", message: `must be at most ${CLIENT_ADDRESS_MAX} characters` }]);
  }
  const normalized = normalizeEmail(email);
  const address = clientAddress ? [addressKey(clientAddress)] : [];
  // Nothing that long was ever registered: a failure, decided without a lookup or a hash.
  const impossible = !isEmailAddress(normalized) || !isSignInPasswordSize(password);
  const keys = impossible ? address : [pairKey(normalized, clientAddress || UNKNOWN_ADDRESS), ...address, emailKey(normalized)];
  const { reservations, holdMs } = await reserveAttempt(deps, keys);
  if (holdMs > 0) await deps.pause(holdMs);
  const user = impossible ? null : await deps.collections.users.findOne({ email: normalized });
  const ok = !impossible && (await deps.passwords.verify(password, user?.passwordHash ?? DECOY_PASSWORD_HASH));
  if (!user || !ok) {
    await forgetStale(deps);
    throw new DomainError("unauthorized", "Email or password is wrong.");
  }
  await settleSuccess(deps, reservations);
  // Only after the password matched, so the status of an account is not told to someone without it.
  if (user.status !== "active") throw new DomainError("unauthorized", "This account is deactivated.");
  return user;
};

const requireUser = async (deps: AccountDeps, userId: string): Promise<UserDoc> => {
  const user = userId ? await deps.collections.users.findById(userId) : null;
  if (!user) throw notFound("User");
  return user;
};

/** Changes the display name (the account's only updatable field); emits `user.updated` when it changed. */
export const updateUser = async (deps: AccountDeps, userId: string, input: { name: string }): Promise<UserDoc> => {
  const errors = checkName(input.name);
  if (errors.length > 0) throw validationFailed(errors);
  const name = input.name.trim();
  return withVersionRetry(async () => {
    const user = await requireUser(deps, userId);
    if (user.name === name) return user;
    const next: UserDoc = { ...user, name, updatedAt: deps.clock.now() };
    await deps.outbox.commit([{ kind: "replace", collection: USERS, doc: next, expectedVersion: user._v ?? 1 }], [userUpdatedEvent(next, ["name"])]);
    return { ...next, _v: nextVersion(user) };
  });
};

const setStatus = async (deps: AccountDeps, user: UserDoc, status: UserDoc["status"]): Promise<UserDoc> => {
  // Idempotent: asking for the state the user is already in changes nothing and emits nothing.
  if (user.status === status) return user;
  const now = deps.clock.now();
  const next: UserDoc = { ...user, status, updatedAt: now };
  if (status === "deactivated") next.deactivatedAt = now;
  else delete next.deactivatedAt;
  const event = status === "deactivated" ? userDeactivatedEvent(next) : userReactivatedEvent(next);
  await deps.outbox.commit([{ kind: "replace", collection: USERS, doc: next, expectedVersion: user._v ?? 1 }], [event]);
  return { ...next, _v: nextVersion(user) };
};

/**
 * Deactivation (the API's delete_account): the user's keys stop verifying at once because verification
 * checks the status; consumers of `user.deactivated` stop their projects and work. Data stays.
 */
export const deactivateUser = async (deps: AccountDeps, userId: string, confirmation: string): Promise<UserDoc> => {
  if (confirmation !== "DELETE") throw validationFailed([{ path: "confirmation", message: "must be exactly the word DELETE" }]);
  return withVersionRetry(async () => setStatus(deps, await requireUser(deps, userId), "deactivated"));
};

/** The operator's undo of a deactivation, by email; emits `user.reactivated`. */
export const reactivateUser = async (deps: AccountDeps, email: string): Promise<UserDoc> => {
  const errors = checkEmail(email);
  if (errors.length > 0) throw validationFailed(errors);
  return withVersionRetry(async () => {
    const user = await deps.collections.users.findOne({ email: normalizeEmail(email) });
    if (!user) throw notFound("User");
    return setStatus(deps, user, "active");
  });
};
