import type { Context } from "moleculer";
import type { RequestMeta } from "../../shared/caller.js";
import { call } from "../../shared/contract.js";
import { IDEMPOTENT_RETRIES } from "../../shared/runtime/call-failures.js";
import { instanceActions } from "../instance/instance.contract.js";

/** Whether the ACCESS setting opens the instance's public content to anonymous callers (contract 2.2). */
export async function instanceIsPublic(ctx: Context): Promise<boolean> {
	// A read: another instance node may answer when the first fails mid-call.
	return (await call(ctx, instanceActions.accessMode, undefined, { retries: IDEMPOTENT_RETRIES })) === "INSTANCE_ACCESS_MODE_PUBLIC";
}

/**
 * Whether the caller is anonymous on a private instance, and so learns nothing (contract 2.2).
 * The instance is asked only about anonymous callers.
 */
export async function anonymousOnPrivateInstance(ctx: Context<unknown, RequestMeta>): Promise<boolean> {
	return !ctx.meta.user && !(await instanceIsPublic(ctx));
}
