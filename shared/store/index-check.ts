import type { Collection, Doc, DocumentStore, Filter, FindOptions, IndexSpec, MergedFindOptions, Update, UpdateOptions } from "./document-store.js";

/** How a missing index is named in logs and readiness: collection, fields in order, options. */
export function describeIndex(collection: string, spec: IndexSpec): string {
	const fields = Object.entries(spec.fields)
		.map(([field, direction]) => `${field}:${direction}`)
		.join(",");
	return `${collection}{${fields}}${spec.unique ? " unique" : ""}${spec.sparse ? " sparse" : ""}`;
}

/**
 * A store whose services only check their indexes (issue 21.5): on MongoDB an index build on a
 * large collection takes minutes, so it is a deploy step of its own (`--migrate`), never part
 * of a service's start. `ensureIndex` here records what is missing instead of building it;
 * readiness stays false, naming the missing indexes, until a migration has made them.
 */
export class IndexCheckingStore implements DocumentStore {
	private readonly missing = new Map<string, { collection: Collection; spec: IndexSpec }>();

	constructor(readonly inner: DocumentStore) {}

	get driver(): DocumentStore["driver"] {
		return this.inner.driver;
	}

	get identity(): string {
		return this.inner.identity;
	}

	collection<T extends Doc = Doc>(name: string): Collection<T> {
		return new IndexCheckingCollection(this.inner.collection<T>(name), (collection, spec) =>
			this.missing.set(describeIndex(collection.name, spec), { collection: collection as unknown as Collection, spec })
		);
	}

	/** The indexes still missing, asked of the store again (a migration may have run since). */
	async missingIndexes(): Promise<string[]> {
		for (const [name, { collection, spec }] of this.missing) if (await collection.hasIndex(spec)) this.missing.delete(name);
		return [...this.missing.keys()];
	}

	ping(): Promise<void> {
		return this.inner.ping();
	}

	sizeBytes(): Promise<number> {
		return this.inner.sizeBytes();
	}

	close(): Promise<void> {
		return this.inner.close();
	}
}

class IndexCheckingCollection<T extends Doc> implements Collection<T> {
	constructor(
		private readonly inner: Collection<T>,
		private readonly onMissing: (collection: Collection<T>, spec: IndexSpec) => void
	) {}

	get name(): string {
		return this.inner.name;
	}

	async ensureIndex(spec: IndexSpec): Promise<void> {
		if (!(await this.inner.hasIndex(spec))) this.onMissing(this.inner, spec);
	}

	ensureArrayField(field: string): Promise<void> {
		return this.inner.ensureArrayField(field);
	}

	hasIndex(spec: IndexSpec): Promise<boolean> {
		return this.inner.hasIndex(spec);
	}

	insert(doc: T): Promise<T> {
		return this.inner.insert(doc);
	}

	find(filter: Filter, options?: FindOptions): Promise<T[]> {
		return this.inner.find(filter, options);
	}

	findMerged(branches: readonly Filter[], options: MergedFindOptions): Promise<T[]> {
		return this.inner.findMerged(branches, options);
	}

	findOne(filter: Filter): Promise<T | null> {
		return this.inner.findOne(filter);
	}

	count(filter: Filter): Promise<number> {
		return this.inner.count(filter);
	}

	estimatedCount(): Promise<number> {
		return this.inner.estimatedCount();
	}

	update(filter: Filter, update: Update, options?: UpdateOptions): Promise<number> {
		return this.inner.update(filter, update, options);
	}

	findOneAndUpdate(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<T | null> {
		return this.inner.findOneAndUpdate(filter, update, options);
	}

	remove(filter: Filter, options?: { multi?: boolean }): Promise<number> {
		return this.inner.remove(filter, options);
	}
}
