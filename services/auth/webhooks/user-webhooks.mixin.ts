import type { Context, ServiceSchema, ServiceSettingSchema } from "moleculer";
import { signedIn, type RequestMeta } from "../../../shared/caller.js";
import { broadcast } from "../../../shared/contract.js";
import { addressRule } from "../../../shared/net/address-guard.js";
import { documentsOf, resourcesOf } from "../../../shared/runtime/resources.js";
import type { Collection } from "../../../shared/store/document-store.js";
import { authEvents, type MemoChangeRecord } from "../auth.contract.js";
import type { UserDoc } from "../user-doc.js";
import { WEBHOOK_DELIVERIES, type DeliveryDoc } from "./delivery-doc.js";
import { recordDeliveries } from "./record-deliveries.js";
import {
	createUserWebhook,
	deleteUserWebhook,
	getUserWebhookSigningSecret,
	listUserWebhooks,
	updateUserWebhook,
	type CreateWebhookParams,
	type UpdateWebhookParams,
	type WebhookDeps
} from "./user-webhooks.js";
import { WEBHOOKS, type WebhookDoc } from "./webhook-doc.js";

/**
 * The auth service's webhook actions (contract 17): upstream's CRUD and signing secret, and the
 * recording of memo changes as deliveries. Sending them is the delivery worker's (webhooks.service.ts),
 * which may run elsewhere.
 */

interface Methods {
	users(): Collection<UserDoc>;
	webhookDeps(): WebhookDeps;
	deliveries(): Collection<DeliveryDoc>;
}

interface Vars {
	clock: () => number;
}

type WebhookPathParams = { user?: unknown; webhook?: unknown };

export const UserWebhooksMixin: ServiceSchema<ServiceSettingSchema, Methods, Vars> = {
	name: "auth",

	actions: {
		listUserWebhooks: {
			handler(ctx: Context<{ user?: unknown }, RequestMeta>) {
				return listUserWebhooks(this.webhookDeps(), ctx.params, signedIn(ctx));
			}
		},

		createUserWebhook: {
			handler(ctx: Context<CreateWebhookParams, RequestMeta>) {
				return createUserWebhook(this.webhookDeps(), ctx.params, signedIn(ctx));
			}
		},

		updateUserWebhook: {
			handler(ctx: Context<UpdateWebhookParams, RequestMeta>) {
				return updateUserWebhook(this.webhookDeps(), ctx.params, signedIn(ctx));
			}
		},

		deleteUserWebhook: {
			async handler(ctx: Context<WebhookPathParams, RequestMeta>): Promise<void> {
				await deleteUserWebhook(this.webhookDeps(), ctx.params, signedIn(ctx));
			}
		},

		getUserWebhookSigningSecret: {
			handler(ctx: Context<WebhookPathParams, RequestMeta>) {
				return getUserWebhookSigningSecret(this.webhookDeps(), ctx.params, signedIn(ctx));
			}
		},

		recordMemoChanges: {
			visibility: "public",
			params: { changes: { type: "array", items: "object" } },
			async handler(ctx: Context<{ changes: MemoChangeRecord[] }>): Promise<{ recorded: number }> {
				const documents = documentsOf(this.broker);
				const recorded = await recordDeliveries(
					{ webhooks: documents.collection<WebhookDoc>(WEBHOOKS), deliveries: this.deliveries(), now: () => this.clock() },
					ctx.params.changes
				);
				if (recorded > 0) await broadcast(this.broker, authEvents.webhookDeliveriesRecorded, { count: recorded });
				return { recorded };
			}
		}
	},

	methods: {
		deliveries(): Collection<DeliveryDoc> {
			return documentsOf(this.broker).collection<DeliveryDoc>(WEBHOOK_DELIVERIES);
		},

		webhookDeps(): WebhookDeps {
			return {
				users: this.users(),
				webhooks: documentsOf(this.broker).collection<WebhookDoc>(WEBHOOKS),
				now: () => this.clock(),
				allowedAddress: addressRule(resourcesOf(this.broker).config.linkMetadataAllowPrivateNetworks),
				webhookDeleted: async webhookId => {
					await this.deliveries().remove({ webhookId, state: "pending" }, { multi: true });
				}
			};
		}
	}
};
