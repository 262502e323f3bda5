import type { Caller } from "../../../shared/caller.js";
import { failedPrecondition, invalidArgument, notFound, permissionDenied } from "../../../shared/errors.js";
import { parseUpdateMask } from "../../../shared/field-mask.js";
import { generateId } from "../../../shared/ids.js";
import { toTimestamp } from "../../../shared/proto-json.js";
import { fieldOf, messageOf, stringOf, type JsonMessage } from "../../../shared/request-message.js";
import type { Collection } from "../../../shared/store/document-store.js";
import { findByUsername } from "../user-access.js";
import type { UserDoc } from "../user-doc.js";
import { generateSigningSecret, parseSigningSecret } from "./signing-secret.js";
import { MAX_WEBHOOKS_PER_USER, type WebhookDoc } from "./webhook-doc.js";
import { parseWebhookUrl } from "./webhook-url.js";

/**
 * Upstream v0.30.0's webhook operations (contract 17): List, Create, Update, Delete and
 * GetUserWebhookSigningSecret on `users/{user}/webhooks`, for the user themself or an admin.
 * Deliveries are another module's (deliveries.ts); deleting a webhook drops its pending ones.
 */

export interface WebhookDeps {
	users: Collection<UserDoc>;
	webhooks: Collection<WebhookDoc>;
	now(): number;
	/** Which resolved addresses a webhook may target (the request-forgery guard, contract 7.12). */
	allowedAddress(address: string): boolean;
	/** The webhook is gone: its pending deliveries are dropped. */
	webhookDeleted(webhookId: string): Promise<void>;
}

const MAX_DISPLAY_NAME = 256;
const UPDATE_PATHS = ["url", "display_name", "signing_secret"] as const;

export function toWebhookJson(username: string, webhook: WebhookDoc): JsonMessage {
	return {
		name: `users/${username}/webhooks/${webhook._id}`,
		url: webhook.url,
		displayName: webhook.displayName,
		createTime: toTimestamp(webhook.createTime),
		updateTime: toTimestamp(webhook.updateTime),
		signingSecretSet: webhook.signingSecret !== ""
	};
}

/** A user's webhooks in creation order. */
export function webhooksOf(webhooks: Collection<WebhookDoc>, userId: string): Promise<WebhookDoc[]> {
	return webhooks.find({ userId }, { sort: { createTime: 1, _id: 1 } });
}

/** The user of a `users/{user}` path, when the caller is that user or an admin (upstream: permission denied otherwise). */
async function ownerFor(deps: WebhookDeps, username: unknown, caller: Caller): Promise<UserDoc> {
	const user = await findByUsername(deps.users, username);
	if (caller.id !== user._id && caller.role !== "ADMIN") throw permissionDenied("only the user themself or an admin may manage their webhooks");
	return user;
}

async function webhookFor(deps: WebhookDeps, params: { user?: unknown; webhook?: unknown }, caller: Caller): Promise<{ user: UserDoc; webhook: WebhookDoc }> {
	const user = await ownerFor(deps, params.user, caller);
	const id = typeof params.webhook === "string" ? params.webhook : "";
	const webhook = id === "" ? null : await deps.webhooks.findOne({ _id: id, userId: user._id });
	if (!webhook) throw notFound(`webhook users/${user.username}/webhooks/${id} not found`);
	return { user, webhook };
}

function displayNameOf(raw: unknown): string {
	const name = raw === undefined || raw === null ? "" : stringOf(raw, "webhook.displayName");
	if ([...name].length > MAX_DISPLAY_NAME) throw invalidArgument(`webhook.displayName must be at most ${MAX_DISPLAY_NAME} characters`);
	return name;
}

export async function listUserWebhooks(deps: WebhookDeps, params: { user?: unknown }, caller: Caller): Promise<JsonMessage> {
	const user = await ownerFor(deps, params.user, caller);
	return { webhooks: (await webhooksOf(deps.webhooks, user._id)).map(webhook => toWebhookJson(user.username, webhook)) };
}

export interface CreateWebhookParams {
	user?: unknown;
	webhook?: unknown;
}

/** CreateUserWebhook: a secret is generated unless the client gives one (upstream). */
export async function createUserWebhook(deps: WebhookDeps, params: CreateWebhookParams, caller: Caller): Promise<JsonMessage> {
	const user = await ownerFor(deps, params.user, caller);
	const body = messageOf(params.webhook, "webhook");
	const url = await parseWebhookUrl(fieldOf(body, "url"), "webhook.url", address => deps.allowedAddress(address));
	const displayName = displayNameOf(fieldOf(body, "display_name"));
	const given = parseSigningSecret(fieldOf(body, "signing_secret"), "webhook.signingSecret");
	const now = deps.now();
	const webhook: WebhookDoc = {
		_id: generateId(),
		userId: user._id,
		url,
		displayName,
		signingSecret: given === "" ? generateSigningSecret() : given,
		createTime: now,
		updateTime: now
	};
	// Insert, then count: two concurrent creations at the cap cannot both stay.
	await deps.webhooks.insert(webhook);
	if ((await deps.webhooks.count({ userId: user._id })) > MAX_WEBHOOKS_PER_USER) {
		await deps.webhooks.remove({ _id: webhook._id });
		throw failedPrecondition(`a user may have at most ${MAX_WEBHOOKS_PER_USER} webhooks`);
	}
	return toWebhookJson(user.username, webhook);
}

export interface UpdateWebhookParams {
	user?: unknown;
	webhook?: unknown;
	updateMask?: unknown;
	patch?: unknown;
}

/**
 * UpdateUserWebhook: the paths of `updateMask` (`url`, `display_name`, `signing_secret`);
 * without a mask, as upstream: the display name, and the URL and secret when given non-empty.
 * An empty `signing_secret` under the mask rotates the secret to a generated one, as Create
 * generates one: upstream clears it and sends unsigned, but deliveries here are always signed.
 */
export async function updateUserWebhook(deps: WebhookDeps, params: UpdateWebhookParams, caller: Caller): Promise<JsonMessage> {
	const { user, webhook } = await webhookFor(deps, params, caller);
	if (params.updateMask !== undefined && typeof params.updateMask !== "string") throw invalidArgument("updateMask must be a string");
	const body = messageOf(params.patch, "webhook");
	const masked = parseUpdateMask(params.updateMask as string | undefined, UPDATE_PATHS);
	const given = (path: string) => {
		const value = fieldOf(body, path);
		return value !== undefined && value !== null && value !== "";
	};
	const paths = masked.length > 0 ? masked : UPDATE_PATHS.filter(path => path === "display_name" || given(path));
	const set: Partial<WebhookDoc> = { updateTime: deps.now() };
	for (const path of paths) {
		if (path === "url") set.url = await parseWebhookUrl(fieldOf(body, "url"), "webhook.url", address => deps.allowedAddress(address));
		else if (path === "display_name") set.displayName = displayNameOf(fieldOf(body, "display_name"));
		else set.signingSecret = parseSigningSecret(fieldOf(body, "signing_secret"), "webhook.signingSecret") || generateSigningSecret();
	}
	const updated = await deps.webhooks.findOneAndUpdate({ _id: webhook._id, userId: user._id }, { $set: set });
	if (!updated) throw notFound(`webhook users/${user.username}/webhooks/${webhook._id} not found`);
	return toWebhookJson(user.username, updated);
}

export async function deleteUserWebhook(deps: WebhookDeps, params: { user?: unknown; webhook?: unknown }, caller: Caller): Promise<void> {
	const { webhook } = await webhookFor(deps, params, caller);
	await deps.webhooks.remove({ _id: webhook._id });
	await deps.webhookDeleted(webhook._id);
}

/** GetUserWebhookSigningSecret: the one answer holding the secret. */
export async function getUserWebhookSigningSecret(deps: WebhookDeps, params: { user?: unknown; webhook?: unknown }, caller: Caller): Promise<JsonMessage> {
	const { webhook } = await webhookFor(deps, params, caller);
	return { signingSecret: webhook.signingSecret };
}
