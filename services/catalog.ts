import type { Catalog } from "../shared/runtime/node.js";
import AiService from "./ai/ai.service.js";
import AttachmentsService from "./attachments/attachments.service.js";
import AuthService from "./auth/auth.service.js";
import WebhooksService from "./auth/webhooks/webhooks.service.js";
import GatewayService from "./gateway/gateway.service.js";
import InstanceService from "./instance/instance.service.js";
import MemosService from "./memos/memos.service.js";
import SpacesService from "./spaces/spaces.service.js";

/** Every service and the stores it needs; `SERVICES` picks from this. */
export const CATALOG: Catalog = {
	gateway: { schema: GatewayService },
	auth: { schema: AuthService, documents: true },
	memos: { schema: MemosService, documents: true },
	attachments: { schema: AttachmentsService, documents: true, blobs: true },
	spaces: { schema: SpacesService, documents: true },
	instance: { schema: InstanceService, documents: true },
	ai: { schema: AiService },
	// The webhook delivery worker: part of the auth service's domain (its webhooks), run and scaled on its own.
	webhooks: { schema: WebhooksService, documents: true }
};
