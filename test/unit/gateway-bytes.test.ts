import { STREAM_LENGTH_PARAM } from "../../shared/contract.js";
import { takeBytes } from "../../services/gateway/bytes-field.js";

describe("request bytes taken out of the params", () => {
	test("a nested base64 field is decoded, removed, and its length recorded", () => {
		const params: Record<string, unknown> = { audio: { content: Buffer.from("hello").toString("base64"), filename: "a.wav" } };
		const bytes = takeBytes(params, "audio.content");
		expect(bytes?.toString()).toBe("hello");
		expect(params).toEqual({ audio: { filename: "a.wav" }, [STREAM_LENGTH_PARAM]: 5 });
	});

	test("URL-safe base64 without padding is accepted", () => {
		const params: Record<string, unknown> = { content: "_-8" };
		expect(takeBytes(params, "content")).toEqual(Buffer.from([0xff, 0xef]));
	});

	test("an empty string gives zero bytes; an absent field gives none", () => {
		const empty: Record<string, unknown> = { content: "" };
		expect(takeBytes(empty, "content")?.length).toBe(0);
		expect(empty[STREAM_LENGTH_PARAM]).toBe(0);
		const absent: Record<string, unknown> = { other: 1 };
		expect(takeBytes(absent, "content")).toBeUndefined();
		expect(absent).toEqual({ other: 1 });
		expect(takeBytes({ audio: "x" }, "audio.content")).toBeUndefined();
	});

	test("invalid base64 and non-strings are INVALID_ARGUMENT", () => {
		expect(() => takeBytes({ content: "not base64!" }, "content")).toThrow(expect.objectContaining({ type: "INVALID_ARGUMENT" }));
		expect(() => takeBytes({ content: 42 }, "content")).toThrow(expect.objectContaining({ type: "INVALID_ARGUMENT" }));
	});
});
