import { z } from "@hono/zod-openapi";
import type { Role } from "../../auth/principal";
import { singleLine, trimmed } from "../../http/openapi";
import type { StoreUser } from "../../store/directory";

export const User = z
  .object({
    uuid: z.uuid().openapi({ example: "3f0d6a1e-2b7c-4c8e-9a51-0d2f6b7e8c91" }),
    email: z.string().openapi({ example: "jane.doe@example.com" }),
    login: z.string().openapi({ example: "jane.doe" }),
    displayName: z.string().openapi({ example: "Jane Doe" }),
    firstName: z.string().nullable().openapi({ example: "Jane" }),
    lastName: z.string().nullable().openapi({ example: "Doe" }),
    roles: z.array(z.enum(["user", "admin"])).openapi({ example: ["user"] }),
  })
  .openapi("User");

export const Session = z
  .object({
    token: z.string().openapi({ example: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIzZjBk…" }),
    tokenType: z.literal("Bearer").openapi({ example: "Bearer" }),
    expiresAt: z.iso.datetime().openapi({ example: "2026-12-21T10:04:05.123Z" }),
    user: User,
  })
  .openapi("Session");

export const RegisterInput = z
  .object({
    // Checked by the service, so that a missing or malformed e-mail gets its own error code.
    email: singleLine().max(4096).optional().openapi({ format: "email", example: "reader@example.com" }),
    // WordPress trims a password's ends and no browser types a control character into a
    // password field, so no shop account is locked out by the no-control-characters rule.
    password: singleLine().min(8).max(4096).openapi({ example: "correct horse battery staple" }),
    firstName: trimmed(100).optional().openapi({ example: "Jane" }),
    lastName: trimmed(100).optional().openapi({ example: "Doe" }),
  })
  .openapi("RegisterInput");

export const LoginInput = z
  .object({
    email: trimmed(4096, 1).openapi({
      description: "An e-mail or a store login name",
      example: "reader@example.com",
    }),
    password: singleLine().min(1).max(4096).openapi({ example: "correct horse battery staple" }),
  })
  .openapi("LoginInput");

export const LogoutInput = z
  .object({
    allSessions: z
      .boolean()
      .optional()
      .openapi({ description: "End every session of the user, not just this one", example: false }),
  })
  .openapi("LogoutInput");

export const LogoutResult = z
  .object({
    loggedOut: z.literal(true).openapi({ example: true }),
    sessionsEnded: z.number().int().openapi({ example: 1 }),
  })
  .openapi("LogoutResult");

export function toUser(user: StoreUser, roles: Role[]): z.infer<typeof User> {
  return {
    uuid: user.uuid,
    email: user.email,
    login: user.login,
    displayName: user.displayName,
    // The store keeps an absent name as an empty string; answers say null for absent values.
    firstName: user.firstName || null,
    lastName: user.lastName || null,
    roles,
  };
}
