import { randomUUID } from "node:crypto";
import mongoose from "mongoose";
import { MongoDocumentStore } from "../../shared/store/mongo-store.js";
import { describeDocumentStoreContract } from "./document-store.contract.js";

const url = process.env.MONGO_URL;

if (url) {
	const dbName = `memos_test_${randomUUID().replaceAll("-", "")}`;

	afterAll(async () => {
		const connection = await mongoose.createConnection(url, { dbName, serverSelectionTimeoutMS: 5000 }).asPromise();
		try {
			await connection.dropDatabase();
		} finally {
			await connection.close();
		}
	});

	describeDocumentStoreContract("mongodb", () => MongoDocumentStore.connect(url, { dbName }), { persistent: true });

	describe("mongodb: bounds and durability", () => {
		test("a query that runs past queryTimeoutMs is stopped by the server (MaxTimeMSExpired), not left running", async () => {
			const store = await MongoDocumentStore.connect(url, { dbName, queryTimeoutMs: 300 });
			try {
				const slow = store.collection("slow");
				await slow.insert({ _id: "a" });
				await expect(slow.find({ $where: "sleep(3000) || true" })).rejects.toMatchObject({ code: 50 });
			} finally {
				await store.close();
			}
		});

		test("writes are acknowledged by a majority with the journal, and reads are majority reads", async () => {
			const store = await MongoDocumentStore.connect(url, { dbName });
			try {
				const client = (store as unknown as { connection: mongoose.Connection }).connection.getClient();
				expect({ w: client.writeConcern?.w, journal: client.writeConcern?.journal, read: client.readConcern?.level }).toEqual({ w: "majority", journal: true, read: "majority" });
			} finally {
				await store.close();
			}
		});
	});
} else {
	describe.skip("document store contract: mongodb (set MONGO_URL to run)", () => {
		test("needs MONGO_URL", () => undefined);
	});
}
