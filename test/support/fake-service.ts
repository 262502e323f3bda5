import type { Context, ServiceSchema } from "moleculer";
import type { ActionRef } from "../../shared/contract.js";

/**
 * Typed fakes of other services' contracts for the service tier (test/service): a fake
 * action answers as its contract types it, so a fake that drifts from the contract fails
 * the type check.
 */

export type FakeHandler<P, R> = (ctx: Context<P>) => Promise<R> | R;

/** A fake action answering as `ref`'s contract types it. */
export function fake<P, R>(ref: ActionRef<P, R>, handler: FakeHandler<P, R>): [string, { handler: FakeHandler<P, R> }] {
	return [ref.action, { handler }];
}

export function fakeService(name: string, actions: [string, unknown][]): ServiceSchema {
	return { name, actions: Object.fromEntries(actions) } as ServiceSchema;
}
