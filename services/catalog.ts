import type { Catalog } from "../shared/runtime/node.js";
import AiService from "./ai/ai.service.js";
import { attachmentsStore, ensureAttachmentIndexes } from "./attachments/attachments-store.js";
import AttachmentsService from "./attachments/attachments.service.js";
import { ensureAuthIndexes } from "./auth/auth-indexes.js";
import AuthService from "./auth/auth.service.js";
import { ensureWebhookIndexes } from "./auth/webhooks/webhook-indexes.js";
import WebhooksService from "./auth/webhooks/webhooks.service.js";
import GatewayService from "./gateway/gateway.service.js";
import InstanceService from "./instance/instance.service.js";
import { ensureMemosIndexes, memosStore } from "./memos/memos-store.js";
import MemosService from "./memos/memos.service.js";
import { ensureSpaceIndexes, spacesStore } from "./spaces/spaces-store.js";
import SpacesService from "./spaces/spaces.service.js";

/** Every service and the stores it needs; `SERVICES` picks from this. */
export const CATALOG: Catalog = {
	gateway: { schema: GatewayService },
	auth: { schema: AuthService, documents: true, indexes: ensureAuthIndexes },
	memos: { schema: MemosService, documents: true, indexes: documents => ensureMemosIndexes(memosStore(documents)) },
	attachments: { schema: AttachmentsService, documents: true, blobs: true, indexes: documents => ensureAttachmentIndexes(attachmentsStore(documents)) },
	spaces: { schema: SpacesService, documents: true, indexes: documents => ensureSpaceIndexes(spacesStore(documents)) },
	instance: { schema: InstanceService, documents: true },
	ai: { schema: AiService },
	// The webhook delivery worker: part of the auth service's domain (its webhooks), run and scaled on its own.
	webhooks: { schema: WebhooksService, documents: true, indexes: ensureWebhookIndexes }
};
