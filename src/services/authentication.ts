// Registration, login and the caller's profile: the rules between the HTTP layer and the store.
import { z } from "zod";
import type { Principal, Role } from "../auth/principal";
import type { Deps } from "../lib/deps";
import { AppError } from "../lib/problems";
import type { Services } from "./container";
import { type OpenedSession, openSession } from "./sessions";
import { throttleRules } from "./throttle";

export interface RequestMeta {
  clientAddress: string;
  userAgent: string | null;
}

const EmailSchema = z.email();

export async function register(
  deps: Deps,
  services: Services,
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
  await services.throttle.consume(throttleRules.registrations, meta.clientAddress, now);
  const user = await deps.store.register({
    email,
    password: input.password,
    firstName: input.firstName ?? "",
    lastName: input.lastName ?? "",
  });
  return openSession({ ...deps, ...services }, user, { ...meta, now: deps.clock.now() });
}

export async function login(
  deps: Deps,
  services: Services,
  input: { email: string; password: string },
  meta: RequestMeta,
): Promise<OpenedSession> {
  const now = deps.clock.now();
  const subject = `${meta.clientAddress}|${input.email.trim()}`;
  const user = await services.throttle.guard(
    [[throttleRules.loginFailures, subject]],
    now,
    async () => {
      const found = await deps.store.authenticate(input.email, input.password);
      if (!found) throw new AppError("AUTHENTICATION_FAILED", "The e-mail or password is wrong.");
      return found;
    },
    ["AUTHENTICATION_FAILED"],
  );
  return openSession({ ...deps, ...services }, user, { ...meta, now });
}

export async function currentUser(deps: Deps, services: Services, principal: Principal) {
  const user = await deps.store.findByUuid(principal.userUuid);
  if (!user) throw new AppError("NOT_FOUND", "The user no longer exists in the store.");
  const roles: Role[] = await services.accountCheck.rolesOf(user);
  return { user, roles };
}
