import type { RouteSpec } from "./route-spec.js";
import { aiRoutes } from "./routes/ai.routes.js";
import { attachmentsRoutes } from "./routes/attachments.routes.js";
import { authRoutes } from "./routes/auth.routes.js";
import { identityProvidersRoutes } from "./routes/identity-providers.routes.js";
import { instanceRoutes } from "./routes/instance.routes.js";
import { memosRoutes } from "./routes/memos.routes.js";
import { notificationsRoutes } from "./routes/notifications.routes.js";
import { spacesRoutes } from "./routes/spaces.routes.js";
import { sseRoutes } from "./routes/sse.routes.js";
import { usersRoutes } from "./routes/users.routes.js";
import { webhooksRoutes } from "./routes/webhooks.routes.js";

/**
 * Every `/api/v1` operation. Order matters where paths overlap: a literal segment
 * (`/memos/-/…`) must come before the parameter that would also match it.
 */
export const ROUTE_TABLE: readonly RouteSpec[] = [
	...instanceRoutes,
	...memosRoutes,
	...authRoutes,
	...usersRoutes,
	...webhooksRoutes,
	...notificationsRoutes,
	...identityProvidersRoutes,
	...aiRoutes,
	...attachmentsRoutes,
	...spacesRoutes,
	...sseRoutes
];
