import { conflict, DomainError, type FieldError, isUniqueViolation, newId, notFound, validationFailed } from "@earshot/platform";
import type { UserDoc, WorkspaceDoc } from "../store";
import { USERS, WORKSPACES } from "../store";
import { type AccountDeps, SOURCE } from "./deps";
import { hashPassword, verifyPassword } from "./password";
import { DEFAULT_PLAN } from "./plans";

export type { AccountDeps } from "./deps";

export interface CreateUserInput {
  email: string;
  name: string;
  password: string;
}

// A pragmatic address check: one @, no spaces, a dot in the domain. Deliverability is proven by mail.
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

const checkName = (name: string): FieldError[] =>
  name.trim().length < 1 || name.trim().length > 100 ? [{ path: "name", message: "must be 1 to 100 characters" }] : [];

export const validateNewUser = (input: CreateUserInput): FieldError[] => {
  const errors: FieldError[] = [];
  const email = normalizeEmail(input.email);
  if (!EMAIL_RE.test(email) || email.length > 254) errors.push({ path: "email", message: "must be an email address" });
  errors.push(...checkName(input.name));
  if (input.password.length < 8 || input.password.length > 200) errors.push({ path: "password", message: "must be 8 to 200 characters" });
  return errors;
};

/** Registers a user and the workspace they own; emits `user.created`. */
export const createUser = async (deps: AccountDeps, input: CreateUserInput): Promise<{ user: UserDoc; workspace: WorkspaceDoc }> => {
  const errors = validateNewUser(input);
  if (errors.length > 0) throw validationFailed(errors);
  const email = normalizeEmail(input.email);
  if (await deps.collections.users.findOne({ email })) throw conflict("A user with this email already exists.");
  const now = deps.clock.now();
  const userId = newId("usr", now.getTime());
  const workspace: WorkspaceDoc = { _id: newId("wsp", now.getTime()), ownerId: userId, plan: DEFAULT_PLAN, createdAt: now, _v: 1 };
  const user: UserDoc = {
    _id: userId,
    email,
    name: input.name.trim(),
    passwordHash: await hashPassword(input.password),
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
      [{ type: "user.created", source: SOURCE, subject: userId, key: workspace._id, data: { userId, workspaceId: workspace._id, email } }],
    );
  } catch (err) {
    // Two registrations of one email racing: the unique index decides.
    if (isUniqueViolation(err)) throw conflict("A user with this email already exists.");
    throw err;
  }
  return { user, workspace };
};

export const getUser = async (deps: AccountDeps, by: { id?: string; email?: string }): Promise<{ user: UserDoc; workspace: WorkspaceDoc | null }> => {
  const user = by.id
    ? await deps.collections.users.findById(by.id)
    : by.email
      ? await deps.collections.users.findOne({ email: normalizeEmail(by.email) })
      : null;
  if (!user) throw notFound("User");
  return { user, workspace: await deps.collections.workspaces.findById(user.workspaceId) };
};

// Compared against when the email is unknown, so a miss costs the same scrypt time as a wrong password.
const DUMMY_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

export const authenticate = async (deps: AccountDeps, email: string, password: string): Promise<UserDoc> => {
  const user = await deps.collections.users.findOne({ email: normalizeEmail(email) });
  const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) throw new DomainError("unauthorized", "Email or password is wrong.");
  if (user.status !== "active") throw new DomainError("unauthorized", "This account is deactivated.");
  return user;
};

const requireUser = async (deps: AccountDeps, userId: string): Promise<UserDoc> => {
  const user = await deps.collections.users.findById(userId);
  if (!user) throw notFound("User");
  return user;
};

export const updateUserName = async (deps: AccountDeps, userId: string, name: string): Promise<UserDoc> => {
  const errors = checkName(name);
  if (errors.length > 0) throw validationFailed(errors);
  const user = await requireUser(deps, userId);
  const next: UserDoc = { ...user, name: name.trim(), updatedAt: deps.clock.now() };
  await deps.outbox.commit(
    [{ kind: "replace", collection: USERS, doc: next, expectedVersion: user._v ?? 1 }],
    [{ type: "user.updated", source: SOURCE, subject: userId, key: user.workspaceId, data: { userId, name: next.name } }],
  );
  return { ...next, _v: (user._v ?? 1) + 1 };
};

const setStatus = async (deps: AccountDeps, user: UserDoc, status: UserDoc["status"]): Promise<UserDoc> => {
  if (user.status === status) return user;
  const now = deps.clock.now();
  const next: UserDoc = { ...user, status, updatedAt: now };
  if (status === "deactivated") next.deactivatedAt = now;
  else delete next.deactivatedAt;
  await deps.outbox.commit(
    [{ kind: "replace", collection: USERS, doc: next, expectedVersion: user._v ?? 1 }],
    [
      {
        type: status === "deactivated" ? "user.deactivated" : "user.reactivated",
        source: SOURCE,
        subject: user._id,
        key: user.workspaceId,
        data: { userId: user._id, workspaceId: user.workspaceId },
      },
    ],
  );
  return { ...next, _v: (user._v ?? 1) + 1 };
};

/** Deactivation: keys and tokens stop verifying at once (they check the status); data stays. */
export const deactivateUser = async (deps: AccountDeps, userId: string, confirmation: string): Promise<UserDoc> => {
  if (confirmation !== "DELETE") throw validationFailed([{ path: "confirmation", message: "must be exactly DELETE" }]);
  return setStatus(deps, await requireUser(deps, userId), "deactivated");
};

export const reactivateUser = async (deps: AccountDeps, email: string): Promise<UserDoc> => {
  const user = await deps.collections.users.findOne({ email: normalizeEmail(email) });
  if (!user) throw notFound("User");
  return setStatus(deps, user, "active");
};
