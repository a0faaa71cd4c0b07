import type { z } from "@hono/zod-openapi";
import { halList, halResource } from "../../http/hal";
import { singleLine } from "../../http/openapi";
import type { UserWithRoles } from "../../services/users";
import { USER_SEARCH_MIN } from "../../services/users";
import { UserUuidParam } from "../activations/activations.schemas";
import { toUser, User } from "../authentication/authentication.schemas";

export { UserUuidParam };

/** GET /user's search: required, so that no request lists a whole shop. */
export const userFilters = {
  q: singleLine()
    .trim()
    .min(USER_SEARCH_MIN)
    .max(100)
    .openapi({
      param: { name: "q", in: "query", required: true },
      description: `At least ${USER_SEARCH_MIN} characters: the start of an e-mail address, login name, first or last name (case-insensitive; README "Finding users and activations" says what each store searches)`,
      example: "jane",
    }),
};

export function toUserOf({ user, roles }: UserWithRoles): z.infer<typeof User> {
  return toUser(user, roles);
}

export const UserResource = halResource("User", User, {
  self: (user) => `/user/${user.uuid}`,
  activations: (user) => `/activation/ofuser/${user.uuid}`,
});

export const UserList = halList("users", UserResource);
