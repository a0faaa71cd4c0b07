// Registration, login and the caller's profile: the rules between the HTTP layer and the store.
import { z } from "zod";
import type { Principal, Role } from "../auth/principal";
import type { Deps } from "../deps";
import { throttleBucketOf } from "../lib/ip-address";
import { AppError } from "../lib/problems";
import type { StoreUser } from "../store/directory";
import { checkCredentials } from "./login-throttle";
import type { Runtime } from "./runtime";
import { type OpenedSession, openSession } from "./sessions";
import { throttleRules } from "./throttle";

export interface RequestMeta {
  clientAddress: string;
  userAgent: string | null;
}

const EmailSchema = z.email();

export async function register(
  deps: Deps,
  runtime: Runtime,
  input: {
    email?: string | undefined;
    password: string;
    firstName?: string | undefined;
    lastName?: string | undefined;
  },
  meta: RequestMeta,
): Promise<OpenedSession> {
  const email = input.email?.trim() ?? "";
  if (email === "") throw new AppError("EMAIL_MISSING", "An e-mail address is required.");
  if (email.length > 100 || !EmailSchema.safeParse(email).success) {
    throw new AppError("EMAIL_MALFORMED", "The e-mail address is not valid.");
  }
  const now = deps.clock.now();
  await runtime.throttle.consume(throttleRules.registrations, throttleBucketOf(meta.clientAddress), now);
  const user = await deps.store.register({
    email,
    password: input.password,
    firstName: input.firstName ?? "",
    lastName: input.lastName ?? "",
  });
  // Registering an address grants none of the shop's guest orders billed to it: an address proves
  // nothing, the order key does (POST /shop/claim, README "Shop orders").
  return openSession({ ...deps, ...runtime }, user, { ...meta, now: deps.clock.now() });
}

export async function login(
  deps: Deps,
  runtime: Runtime,
  input: { email: string; password: string },
  meta: RequestMeta,
): Promise<OpenedSession> {
  const user = await verifyLogin(deps, runtime, input, meta);
  return openSession({ ...deps, ...runtime }, user, { ...meta, now: deps.clock.now() });
}

/**
 * The store user whose login or e-mail and password these are: one check for POST
 * /authentication/login and the console's sign-in alike (the same throttles, the same cost for an
 * unknown name and a wrong password, one 401 for both).
 */
export async function verifyLogin(
  deps: Deps,
  runtime: Runtime,
  input: { email: string; password: string },
  meta: RequestMeta,
): Promise<StoreUser> {
  const user = await checkCredentials(deps.store, runtime.throttle, {
    loginOrEmail: input.email,
    password: input.password,
    clientAddress: meta.clientAddress,
    now: deps.clock.now(),
  });
  if (!user) throw new AppError("AUTHENTICATION_FAILED", "The e-mail or password is wrong.");
  return user;
}

export async function currentUser(deps: Deps, runtime: Runtime, principal: Principal) {
  const user = await deps.store.findByUuid(principal.userUuid);
  if (!user) throw new AppError("NOT_FOUND", "The user no longer exists in the store.");
  const roles: Role[] = await runtime.accountCheck.rolesOf(user);
  return { user, roles };
}
