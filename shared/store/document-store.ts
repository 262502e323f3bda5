/**
 * The document store port (DESIGN.md, "Ports inside the code"): a small interface in the
 * Mongo query language with two adapters, SQLite (embedded, node:sqlite) and MongoDB (mongoose).
 *
 * Documents carry a string `_id` chosen by the caller (usually the resource id), so the
 * primary key doubles as the uniqueness check for client-chosen ids.
 */

export type Doc = { _id: string } & Record<string, unknown>;

/**
 * A query in the Mongo query language, with MongoDB's meaning in both adapters: field
 * equality (an array field equals any of its elements; `null` also matches a missing field),
 * dotted paths, $eq $ne $gt $gte $lt $lte $in $nin $exists $regex $size $elemMatch, and
 * $and $or $nor at the top. `$not` applies to one field (`{ f: { $not: { $gt: 1 } } }`).
 * `$regex` takes a RegExp; only the `i` and `m` flags mean the same to both adapters.
 */
export type Filter = Record<string, unknown>;

/** 1 ascending, -1 descending; keys in priority order. */
export type Sort = Record<string, 1 | -1>;

/** $set, $unset, $inc, $push, $pull (and $addToSet). */
export type Update = {
	$set?: Record<string, unknown>;
	$unset?: Record<string, true | 1 | "">;
	$inc?: Record<string, number>;
	$push?: Record<string, unknown>;
	$pull?: Record<string, unknown>;
	$addToSet?: Record<string, unknown>;
};

export interface FindOptions {
	sort?: Sort;
	skip?: number;
	limit?: number;
	/** Inclusion projection (`{ field: 1 }`); `_id` is always returned. */
	projection?: Record<string, 1>;
}

/** A merged read of branches (Collection.findMerged): the order, and the documents wanted. */
export interface MergedFindOptions {
	sort: Sort;
	limit: number;
}

export interface UpdateOptions {
	/** Update every matching document (default: the first one only). */
	multi?: boolean;
	/**
	 * Insert when nothing matches: the filter's equality fields plus the update make the new
	 * document, with a generated string `_id` unless the filter fixes one.
	 */
	upsert?: boolean;
}

export interface IndexSpec {
	/** Fields in order (equality fields first, then the sort key); the direction matters to MongoDB only. */
	fields: Record<string, 1 | -1>;
	unique?: boolean;
	/** Documents lacking the fields are left out of the index (so a unique index ignores them). */
	sparse?: boolean;
}

export interface Collection<T extends Doc = Doc> {
	readonly name: string;
	ensureIndex(spec: IndexSpec): Promise<void>;
	/**
	 * Declares that filters test the elements of the array field `field` (a list's `tags`
	 * filter): the SQLite store then keeps the field's JSON text in a column of its own, so the
	 * test parses that rather than the whole document of every row it reads; MongoDB needs
	 * nothing. Every read answers the same with or without it.
	 */
	ensureArrayField(field: string): Promise<void>;
	/** Whether the index exists as specified (fields in order, directions, unique, sparse). */
	hasIndex(spec: IndexSpec): Promise<boolean>;
	/** Inserts; a clash on `_id` or a unique index throws DuplicateKeyError. */
	insert(doc: T): Promise<T>;
	find(filter: Filter, options?: FindOptions): Promise<T[]>;
	/**
	 * The first `limit` documents in `sort` order among those matching any of `branches`, each
	 * once: a top-k read of a union. Each branch must be served by an index in `sort` order (after
	 * the keys it fixes), and the store reads at most `limit` entries of each, where one find of
	 * their `$or` would have it sort every match. Only the documents returned are read whole.
	 */
	findMerged(branches: readonly Filter[], options: MergedFindOptions): Promise<T[]>;
	findOne(filter: Filter): Promise<T | null>;
	count(filter: Filter): Promise<number>;
	/**
	 * How many documents the collection holds, from the store's own bookkeeping rather than by
	 * reading them: MongoDB's collection metadata (after an unclean shutdown it may be off until
	 * the server checks the collection), an exact count in SQLite. For figures that are shown
	 * (statistics), never for decisions.
	 */
	estimatedCount(): Promise<number>;
	/**
	 * Returns how many documents matched (even if the update left them as they were) or were
	 * inserted by an upsert. An update needs at least one operator.
	 */
	update(filter: Filter, update: Update, options?: UpdateOptions): Promise<number>;
	/** Atomically updates the first match and returns it as it is after the update, or null. */
	findOneAndUpdate(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<T | null>;
	/** Returns how many documents were removed. */
	remove(filter: Filter, options?: { multi?: boolean }): Promise<number>;
}

export interface DocumentStore {
	/** `nedb` (the embedded store: contract 4.11 keeps that name for it, now SQLite) or `mongodb`, as instance stats report it. */
	readonly driver: "nedb" | "mongodb";
	/**
	 * Written once when the store was created, the same for every process that uses it: replicas
	 * of a service must all answer from one store (issue 16.7), and compare this to be sure.
	 */
	readonly identity: string;
	collection<T extends Doc = Doc>(name: string): Collection<T>;
	/** Throws when the store cannot serve requests (readiness). */
	ping(): Promise<void>;
	/** Bytes the store occupies, or -1 when it cannot be measured. */
	sizeBytes(): Promise<number>;
	/**
	 * Optional: a value that moves whenever anything in the store changes, every collection and
	 * every writer (this process's or another's) alike; equal values read at two moments mean no
	 * document changed in between, so what was read at the first still holds.
	 * Absent where the store cannot tell (the MongoDB adapter): what relies on it is off there.
	 */
	changeToken?(): string;
	close(): Promise<void>;
}

/** A write clashed with `_id` or a unique index. */
export class DuplicateKeyError extends Error {
	constructor(
		readonly collection: string,
		message = "duplicate key"
	) {
		super(`${collection}: ${message}`);
		this.name = "DuplicateKeyError";
	}
}

/**
 * Why the storage under a store failed, named like the system's errors (`ENOSPC`, `EROFS`,
 * `EBUSY`, `EIO`; a database server out of reach `ENOTCONN`, or out of time `ETIMEDOUT`), so
 * the gateway maps a store's failure and a file's alike (issue 16.6, 21.3).
 */
export type StorageFailureCode = "ENOSPC" | "EROFS" | "EBUSY" | "EIO" | "ENOTCONN" | "ETIMEDOUT";

/** The storage refused an operation: nothing of a failed write was kept. */
export class StorageError extends Error {
	constructor(
		readonly code: StorageFailureCode,
		message: string,
		options?: { cause?: unknown }
	) {
		super(message, options);
		this.name = "StorageError";
	}
}
