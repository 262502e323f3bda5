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
} else {
	describe.skip("document store contract: mongodb (set MONGO_URL to run)", () => {
		test("needs MONGO_URL", () => undefined);
	});
}
