import type { Service, ServiceSchema } from "moleculer";
import type { DocumentStore } from "../store/document-store.js";
import { documentsOf } from "./resources.js";

/** Declares (builds, or on MongoDB checks: index-check.ts) a service's indexes in the store given. */
export type EnsureIndexes = (documents: DocumentStore) => Promise<void>;

const DECLARED = new WeakMap<object, EnsureIndexes>();

/**
 * The mixin through which a service declares its indexes, once: they are made (on MongoDB,
 * checked) when the service starts, before its own `started`, and `--migrate` finds them on the
 * service's schema (`indexesOf`) to build them.
 */
export function indexesMixin(ensure: EnsureIndexes): Partial<ServiceSchema> {
	const mixin = {
		async started(this: Service) {
			await ensure(documentsOf(this.broker));
		}
	};
	DECLARED.set(mixin, ensure);
	return mixin as Partial<ServiceSchema>;
}

/** The indexes a service schema declares through `indexesMixin`, if any. */
export function indexesOf(schema: Partial<ServiceSchema>): EnsureIndexes | undefined {
	for (const mixin of schema.mixins ?? []) {
		const ensure = DECLARED.get(mixin);
		if (ensure !== undefined) return ensure;
	}
	return undefined;
}
