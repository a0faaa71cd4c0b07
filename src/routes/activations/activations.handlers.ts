import { auditSourceOf } from "../../http/audit-source";
import { clientAddressOf } from "../../http/client-address";
import {
  listRequestOf,
  respondCount,
  respondCreated,
  respondList,
  respondResource,
} from "../../http/respond";
import type { AppRouteHandler } from "../../http/types";
import * as service from "../../services/activations";
import { redeem } from "../../services/redemption";
import type * as routes from "./activations.routes";
import { ActivationList, ActivationResource, activationFilterOf, toActivation } from "./activations.schemas";

export const listActivations: AppRouteHandler<typeof routes.listActivations> = async (c) => {
  const query = c.req.valid("query");
  const { window, paging } = listRequestOf(query);
  const list = await service.listActivations(c.get("deps").db, window, activationFilterOf(query));
  return respondList(c, ActivationList, list, toActivation, paging, 200);
};

export const countActivations: AppRouteHandler<typeof routes.countActivations> = async (c) => {
  const count = await service.countActivations(c.get("deps").db, activationFilterOf(c.req.valid("query")));
  return respondCount(c, count);
};

export const listActivationsOfUser: AppRouteHandler<typeof routes.listActivationsOfUser> = async (c) => {
  const { userUUID } = c.req.valid("param");
  const { window, paging } = listRequestOf(c.req.valid("query"));
  const list = await service.listActivations(c.get("deps").db, window, { userUuid: userUUID });
  return respondList(c, ActivationList, list, toActivation, paging, 200);
};

export const countActivationsOfUser: AppRouteHandler<typeof routes.countActivationsOfUser> = async (c) => {
  const { userUUID } = c.req.valid("param");
  const count = await service.countActivations(c.get("deps").db, { userUuid: userUUID });
  return respondCount(c, count);
};

export const getActivation: AppRouteHandler<typeof routes.getActivation> = async (c) => {
  const activation = await service.getActivationFor(
    c.get("deps").db,
    c.get("principal"),
    c.req.valid("param").id,
  );
  return respondResource(c, ActivationResource, toActivation(activation));
};

export const createActivation: AppRouteHandler<typeof routes.createActivation> = async (c) => {
  const { db, store, clock } = c.get("deps");
  const activation = await service.createActivation(
    db,
    store,
    auditSourceOf(c),
    c.req.valid("json"),
    clock.now(),
  );
  return respondCreated(c, ActivationResource, toActivation(activation));
};

export const redeemActivationQrCode: AppRouteHandler<typeof routes.redeemActivationQrCode> = async (c) => {
  const { db, store, clock } = c.get("deps");
  const { activation, created } = await redeem(
    {
      db,
      store,
      throttle: c.get("runtime").throttle,
      now: clock.now(),
      clientAddress: clientAddressOf(c),
      by: auditSourceOf(c),
    },
    c.get("principal"),
    c.req.valid("json"),
  );
  if (!created) return respondResource(c, ActivationResource, toActivation(activation));
  return respondCreated(c, ActivationResource, toActivation(activation));
};

export const updateActivation: AppRouteHandler<typeof routes.updateActivation> = async (c) => {
  const { db, store, clock } = c.get("deps");
  const activation = await service.replaceActivation(
    db,
    store,
    auditSourceOf(c),
    c.req.valid("param").id,
    c.req.valid("json"),
    clock.now(),
  );
  return respondResource(c, ActivationResource, toActivation(activation));
};

export const deleteActivation: AppRouteHandler<typeof routes.deleteActivation> = async (c) => {
  const { db, clock } = c.get("deps");
  const activation = await service.removeActivation(
    db,
    auditSourceOf(c),
    c.req.valid("param").id,
    clock.now(),
  );
  return respondResource(c, ActivationResource, toActivation(activation));
};
