import { randomUUID } from "node:crypto";
import mongoose from "mongoose";
import { DuplicateKeyError, type Collection, type Doc, type DocumentStore, type Filter, type FindOptions, type IndexSpec, type MergedFindOptions, type Update, type UpdateOptions } from "./document-store.js";
import { mapMongoError } from "./mongo-errors.js";
import { findMergedByBranch } from "./sort-order.js";

type NativeCollection = mongoose.Collection<Doc>;
type MongoFilter = mongoose.mongo.Filter<Doc>;
type MongoUpdate = mongoose.mongo.UpdateFilter<Doc>;

/**
 * The cluster adapter: MongoDB through mongoose's connection, using the driver's collections
 * directly (documents are plain objects, the port needs no schemas).
 */
export class MongoDocumentStore implements DocumentStore {
	readonly driver = "mongodb";
	private closed = false;

	private constructor(
		private readonly connection: mongoose.Connection,
		private readonly queryTimeoutMs: number,
		readonly identity: string
	) {}

	/**
	 * `dbName` overrides the database named in the URL (tests use one per run); `queryTimeoutMs`
	 * bounds each operation on the server, and should be below the time callers wait for it.
	 */
	static async connect(url: string, options: { dbName?: string; queryTimeoutMs?: number } = {}): Promise<MongoDocumentStore> {
		const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
		const connection = mongoose.createConnection(url, {
			// A replica set election takes about 12 s: selecting a server waits through one
			// rather than failing every call of a failover.
			serverSelectionTimeoutMS: 15_000,
			// A socket that stays silent well past any operation's own bound is dead (a partition).
			socketTimeoutMS: queryTimeoutMs + 10_000,
			// Acknowledged means on a majority and in their journals: a failover cannot roll it back
			// (and hand out a `seq` twice). Reads see only majority-committed data for the same reason.
			writeConcern: { w: "majority", journal: true, wtimeoutMS: queryTimeoutMs },
			readConcern: { level: "majority" },
			retryWrites: true,
			retryReads: true,
			// While disconnected mongoose would queue calls, and a queued find() yields a promise
			// where the driver yields a cursor; the driver's own server selection waits instead.
			bufferCommands: false,
			...(options.dbName ? { dbName: options.dbName } : {})
		});
		let identity: string;
		try {
			await connection.asPromise();
			identity = await storeIdentity(connection.collection<IdentityDoc>(METADATA_COLLECTION), queryTimeoutMs);
		} catch (err) {
			await connection.close().catch(() => undefined);
			throw err;
		}
		return new MongoDocumentStore(connection, queryTimeoutMs, identity);
	}

	collection<T extends Doc = Doc>(name: string): Collection<T> {
		if (this.closed) throw new Error("the document store is closed");
		return new MongoCollection(name, this.connection.collection<Doc>(name), this.queryTimeoutMs) as unknown as Collection<T>;
	}

	async ping(): Promise<void> {
		if (this.closed) throw new Error("the document store is closed");
		await this.db().command({ ping: 1 });
	}

	async sizeBytes(): Promise<number> {
		try {
			const stats = await this.db().command({ dbStats: 1 });
			return Number(stats.dataSize) + Number(stats.indexSize);
		} catch {
			return -1;
		}
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		await this.connection.close();
	}

	private db(): mongoose.mongo.Db {
		const db = this.connection.db;
		if (!db) throw new Error("not connected to MongoDB");
		return db;
	}
}

/** The store's own metadata, beside the services' collections (no service names a collection so). */
const METADATA_COLLECTION = "_store";

type IdentityDoc = { _id: string; value: string; createTime: Date };

/**
 * The database's identity, written by the first process that connects to it (an upsert that
 * only inserts, so racing processes agree on the first one's value).
 */
async function storeIdentity(metadata: mongoose.Collection<IdentityDoc>, maxTimeMS: number): Promise<string> {
	const filter = { _id: "identity" };
	try {
		const doc = await metadata.findOneAndUpdate(filter, { $setOnInsert: { value: randomUUID(), createTime: new Date() } }, { upsert: true, returnDocument: "after", maxTimeMS });
		if (doc) return doc.value;
	} catch (err) {
		// Two first upserts at once: one of them clashes on _id, and the other's value stands.
		const mapped = mapMongoError(METADATA_COLLECTION, err);
		if (!(mapped instanceof DuplicateKeyError)) throw mapped;
	}
	const doc = await metadata.findOne(filter, { maxTimeMS });
	if (!doc) throw new Error("MongoDB: the store's identity could not be read back");
	return doc.value;
}

/** listIndexes on a collection that does not exist yet. */
const NAMESPACE_NOT_FOUND = 26;

/** What an operation may take on the server when the caller names no bound (maxTimeMS). */
const DEFAULT_QUERY_TIMEOUT_MS = 8_000;

/**
 * Every operation but index builds carries `maxTimeMS`: the server stops a query its caller
 * has given up on, instead of running it on while retries pile more of it onto the primary.
 */
class MongoCollection implements Collection<Doc> {
	constructor(
		readonly name: string,
		private readonly native: NativeCollection,
		private readonly maxTimeMS: number
	) {}

	async ensureIndex(spec: IndexSpec): Promise<void> {
		await this.guard(this.native.createIndex(spec.fields, { unique: spec.unique ?? false, sparse: spec.sparse ?? false }));
	}

	async ensureArrayField(): Promise<void> {
		// MongoDB reads an array's elements from the stored document itself: nothing to keep apart.
	}

	async hasIndex(spec: IndexSpec): Promise<boolean> {
		let existing: mongoose.mongo.IndexDescriptionInfo[];
		try {
			existing = await this.guard(this.native.listIndexes().toArray());
		} catch (err) {
			if ((err as { code?: unknown }).code === NAMESPACE_NOT_FOUND) return false;
			throw err;
		}
		const key = JSON.stringify(Object.entries(spec.fields));
		return existing.some(
			index =>
				JSON.stringify(Object.entries(index.key)) === key && (index.unique ?? false) === (spec.unique ?? false) && (index.sparse ?? false) === (spec.sparse ?? false)
		);
	}

	async insert(doc: Doc): Promise<Doc> {
		await this.guard(this.native.insertOne(doc));
		return doc;
	}

	find(filter: Filter, options: FindOptions = {}): Promise<Doc[]> {
		return this.guard(
			this.native
				.find(filter as MongoFilter, {
					sort: options.sort,
					skip: options.skip,
					limit: options.limit,
					projection: options.projection,
					maxTimeMS: this.maxTimeMS
				})
				.toArray()
		);
	}

	/** MongoDB has no merge of sorted reads: each branch is its own limited find, merged here. */
	findMerged(branches: readonly Filter[], options: MergedFindOptions): Promise<Doc[]> {
		return findMergedByBranch((filter, read) => this.find(filter, read), branches, options);
	}

	findOne(filter: Filter): Promise<Doc | null> {
		return this.guard(this.native.findOne(filter as MongoFilter, { maxTimeMS: this.maxTimeMS }));
	}

	count(filter: Filter): Promise<number> {
		return this.guard(this.native.countDocuments(filter as MongoFilter, { maxTimeMS: this.maxTimeMS }));
	}

	estimatedCount(): Promise<number> {
		return this.guard(this.native.estimatedDocumentCount({ maxTimeMS: this.maxTimeMS }));
	}

	async update(filter: Filter, update: Update, options: UpdateOptions = {}): Promise<number> {
		const upsert = options.upsert ?? false;
		const mongoUpdate = toMongoUpdate(filter, update, upsert);
		const result = await this.guard(
			options.multi
				? this.native.updateMany(filter as MongoFilter, mongoUpdate, { upsert, maxTimeMS: this.maxTimeMS })
				: this.native.updateOne(filter as MongoFilter, mongoUpdate, { upsert, maxTimeMS: this.maxTimeMS })
		);
		return result.matchedCount + result.upsertedCount;
	}

	findOneAndUpdate(filter: Filter, update: Update, options: { upsert?: boolean } = {}): Promise<Doc | null> {
		const upsert = options.upsert ?? false;
		return this.guard(
			this.native.findOneAndUpdate(filter as MongoFilter, toMongoUpdate(filter, update, upsert), { upsert, returnDocument: "after", maxTimeMS: this.maxTimeMS })
		);
	}

	async remove(filter: Filter, options: { multi?: boolean } = {}): Promise<number> {
		const bound = { maxTimeMS: this.maxTimeMS };
		const result = await this.guard(options.multi ? this.native.deleteMany(filter as MongoFilter, bound) : this.native.deleteOne(filter as MongoFilter, bound));
		return result.deletedCount;
	}

	/** Every driver error leaves as the port's error (mongo-errors.ts). */
	private async guard<R>(operation: Promise<R>): Promise<R> {
		try {
			return await operation;
		} catch (err) {
			throw mapMongoError(this.name, err);
		}
	}
}

/** MongoDB would give an upserted document an ObjectId; the port's ids are strings. */
function toMongoUpdate(filter: Filter, update: Update, upsert: boolean): MongoUpdate {
	if (Object.keys(update).length === 0) throw new Error("an update needs at least one operator");
	if (!upsert || fixesId(filter)) return update as MongoUpdate;
	return { ...update, $setOnInsert: { _id: randomUUID() } } as MongoUpdate;
}

/** Whether an upsert takes `_id` from the filter (equality at the top level or under `$and`). */
function fixesId(filter: Filter): boolean {
	const id = filter._id;
	if (id !== undefined && !(id instanceof RegExp)) {
		const isOperator = typeof id === "object" && id !== null && !Array.isArray(id) && Object.keys(id).some(key => key.startsWith("$"));
		if (!isOperator || "$eq" in id) return true;
	}
	return Array.isArray(filter.$and) && filter.$and.some(query => fixesId(query as Filter));
}
