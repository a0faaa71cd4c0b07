import type { Context } from "hono";
import { clientAddressOf } from "../../lib/client-address";
import { countText } from "../../lib/count-response";
import { respondResource } from "../../lib/hal";
import { limitOffset, orderByOf, pagingOf, respondList } from "../../lib/sort-and-page";
import type { AppBindings, AppRouteHandler } from "../../lib/types";
import * as repo from "../../repositories/activations";
import * as service from "../../services/activations";
import { redeem } from "../../services/redemption";
import type * as routes from "./activations.routes";
import { activationLinks, toActivation } from "./activations.schemas";

type ListQuery = { page?: number; size?: number; sort?: string[] };

/** The activations a filter covers (also of a book, for the reader router), as a list of API.md §1 (sort, paging, headers, HAL). */
export async function respondActivations(
  c: Context<AppBindings>,
  query: ListQuery,
  filter: repo.ActivationFilter,
) {
  const { db } = c.get("deps");
  const { activation: a } = db.tables;
  const paging = pagingOf(query);
  const orderBy = orderByOf(query.sort, { id: a.id, bookId: a.bookId, createdAt: a.createdAt }, a.id);
  const [rows, total] = await Promise.all([
    repo.listActivations(db, { ...filter, orderBy, ...limitOffset(paging) }),
    repo.countActivations(db, filter),
  ]);
  return respondList(c, {
    rel: "activations",
    items: rows.map(toActivation),
    total,
    paging,
    links: activationLinks,
  });
}

export const listActivations: AppRouteHandler<typeof routes.listActivations> = async (c) => {
  return (await respondActivations(c, c.req.valid("query"), {})) as never;
};

export const countActivations: AppRouteHandler<typeof routes.countActivations> = async (c) => {
  return countText(c, await repo.countActivations(c.get("deps").db)) as never;
};

export const listActivationsOfUser: AppRouteHandler<typeof routes.listActivationsOfUser> = async (c) => {
  const { userUUID } = c.req.valid("param");
  return (await respondActivations(c, c.req.valid("query"), { userUuid: userUUID })) as never;
};

export const countActivationsOfUser: AppRouteHandler<typeof routes.countActivationsOfUser> = async (c) => {
  const { userUUID } = c.req.valid("param");
  return countText(c, await repo.countActivations(c.get("deps").db, { userUuid: userUUID })) as never;
};

export const getActivation: AppRouteHandler<typeof routes.getActivation> = async (c) => {
  const activation = await service.getActivationFor(
    c.get("deps").db,
    c.get("principal"),
    c.req.valid("param").id,
  );
  return respondResource(c, toActivation(activation), (base) => activationLinks(activation, base)) as never;
};

export const createActivation: AppRouteHandler<typeof routes.createActivation> = async (c) => {
  const { db, store, clock } = c.get("deps");
  const activation = await service.createActivation(db, store, c.req.valid("json"), clock.now());
  c.header("Location", `/activation/${activation.id}`);
  return respondResource(
    c,
    toActivation(activation),
    (base) => activationLinks(activation, base),
    201,
  ) as never;
};

export const redeemQrCode: AppRouteHandler<typeof routes.redeemQrCode> = async (c) => {
  const { db, store, clock } = c.get("deps");
  const { activation, created } = await redeem(
    { db, store, throttle: c.get("services").throttle, now: clock.now(), clientAddress: clientAddressOf(c) },
    c.get("principal"),
    c.req.valid("json"),
  );
  if (created) c.header("Location", `/activation/${activation.id}`);
  const links = (base: string) => activationLinks(activation, base);
  return respondResource(c, toActivation(activation), links, created ? 201 : 200) as never;
};

export const updateActivation: AppRouteHandler<typeof routes.updateActivation> = async (c) => {
  const { db, store, clock } = c.get("deps");
  const activation = await service.replaceActivation(
    db,
    store,
    c.req.valid("param").id,
    c.req.valid("json"),
    clock.now(),
  );
  return respondResource(c, toActivation(activation), (base) => activationLinks(activation, base)) as never;
};

export const deleteActivation: AppRouteHandler<typeof routes.deleteActivation> = async (c) => {
  const { db, clock } = c.get("deps");
  const activation = await service.removeActivation(db, c.req.valid("param").id, clock.now());
  return respondResource(c, toActivation(activation), (base) => activationLinks(activation, base)) as never;
};
