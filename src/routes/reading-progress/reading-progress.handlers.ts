import type { AppRouteHandler } from "../../http/types";
import * as service from "../../services/reading-progress";
import type * as routes from "./reading-progress.routes";
import { toReadingProgress } from "./reading-progress.schemas";

export const getReadingProgress: AppRouteHandler<typeof routes.getReadingProgress> = async (c) => {
  const { db } = c.get("deps");
  const row = await service.getReadingProgress(db, c.get("principal"), c.req.valid("param").id);
  if (!row) return c.body(null, 204);
  return c.json(toReadingProgress(row), 200);
};

export const putReadingProgress: AppRouteHandler<typeof routes.putReadingProgress> = async (c) => {
  const { db, clock } = c.get("deps");
  const row = await service.putReadingProgress(
    db,
    c.get("principal"),
    c.req.valid("param").id,
    c.req.valid("json"),
    clock.now(),
  );
  return c.json(toReadingProgress(row), 200);
};
