import { STREAM_LENGTH_PARAM } from "../../shared/contract.js";
import { bytesFieldInBody, takeBytes } from "../../services/gateway/bytes-field.js";
import type { RouteSpec } from "../../services/gateway/route-spec.js";

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

	test("bytes the body reader decoded already (a Buffer) are taken as they are", () => {
		const params: Record<string, unknown> = { content: Buffer.from("hi"), uploadId: "u" };
		expect(takeBytes(params, "content")?.toString()).toBe("hi");
		expect(params).toEqual({ uploadId: "u", [STREAM_LENGTH_PARAM]: 2 });
	});

	test("where the bytes field lies in the JSON body follows the route's body mapping", () => {
		const spec = (body: string | undefined, bytesField: string | undefined) => ({ body, bytesField }) as RouteSpec;
		expect(bytesFieldInBody(spec("*", "content"))).toEqual(["content"]);
		expect(bytesFieldInBody(spec("*", "audio.content"))).toEqual(["audio", "content"]);
		expect(bytesFieldInBody(spec("attachment", "attachment.content"))).toEqual(["content"]);
		expect(bytesFieldInBody(spec("attachment", "other.content"))).toBeUndefined();
		expect(bytesFieldInBody(spec("attachment", "attachment"))).toBeUndefined();
		expect(bytesFieldInBody(spec("*", undefined))).toBeUndefined();
		expect(bytesFieldInBody(spec(undefined, "content"))).toBeUndefined();
	});
});
