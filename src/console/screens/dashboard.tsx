// GET /console: the dashboard (README "Console").
import type { Hono } from "hono";
import type { AppBindings } from "../../http/types";
import { page } from "../kit/layout";

export function mountDashboard(router: Hono<AppBindings>): void {
  router.get("/", (c) => page(c, { title: "Dashboard", section: "dashboard" }, <p>Welcome.</p>));
}
