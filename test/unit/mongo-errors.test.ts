import mongoose from "mongoose";
import { mapError } from "../../services/gateway/status.js";
import { DuplicateKeyError, StorageError } from "../../shared/store/document-store.js";
import { mapMongoError } from "../../shared/store/mongo-errors.js";

const { MongoServerError, MongoNetworkError, MongoNetworkTimeoutError, MongoServerSelectionError, MongoTopologyClosedError } = mongoose.mongo;

const serverError = (code: number, labels: string[] = []) => new MongoServerError({ code, errmsg: `server error ${code}`, errorLabels: labels });

describe("MongoDB driver errors as the port's errors (issue 21.3)", () => {
	test("a duplicate key stays ALREADY_EXISTS material: DuplicateKeyError naming the collection and the key", () => {
		const err = new MongoServerError({ code: 11000, errmsg: "E11000 duplicate key", keyValue: { username: "ann" } });
		const mapped = mapMongoError("users", err);
		expect(mapped).toBeInstanceOf(DuplicateKeyError);
		expect((mapped as Error).message).toBe('users: duplicate key {"username":"ann"}');
	});

	test.each([
		["maxTimeMS ran out", serverError(50), "ETIMEDOUT"],
		["a write concern not met in time", serverError(64), "ETIMEDOUT"],
		["the primary stepped down", serverError(189), "ENOTCONN"],
		["a write sent to a node that is no longer primary", serverError(10107), "ENOTCONN"],
		["an interruption by a replica state change", serverError(11602), "ENOTCONN"],
		["any error the server labels a retryable write error", serverError(1234, ["RetryableWriteError"]), "ENOTCONN"],
		["a lost connection", new MongoNetworkError("connection 3 to 10.0.0.5:27017 closed"), "ENOTCONN"],
		["a socket time-out", new MongoNetworkTimeoutError("connection timed out"), "ENOTCONN"],
		["no server selectable (an election under way)", Object.assign(Object.create(MongoServerSelectionError.prototype) as Error, { message: "Server selection timed out after 15000 ms" }), "ENOTCONN"],
		["a client already closed", new MongoTopologyClosedError(), "ENOTCONN"]
	])("%s is a StorageError that the gateway answers 503 with Retry-After, never 500", (_, err, code) => {
		const mapped = mapMongoError("memos", err);
		expect(mapped).toBeInstanceOf(StorageError);
		expect({ code: (mapped as StorageError).code, cause: (mapped as StorageError).cause }).toEqual({ code, cause: err });
		expect(mapError(mapped)).toMatchObject({ http: 503, body: { code: 14 }, retryAfter: 1 });
	});

	test("as it arrives at the gateway from another node (name, message and code kept by Moleculer), it maps the same", () => {
		const remote = Object.assign(new Error("the document store is unreachable for memos"), { name: "Error", code: "ENOTCONN" });
		expect(mapError(remote)).toMatchObject({ http: 503, body: { code: 14, message: "storage is unreachable (failover or network), retry later" }, retryAfter: 1 });
	});

	test("other server errors (a bad query, say) are passed on as they are", () => {
		const err = serverError(2);
		expect(mapMongoError("memos", err)).toBe(err);
		const plain = new TypeError("not a driver error");
		expect(mapMongoError("memos", plain)).toBe(plain);
	});
});
