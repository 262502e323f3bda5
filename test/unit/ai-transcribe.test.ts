import { defaultFilename, essence, resolveAudioType, typeFromFilename } from "../../services/ai/audio-type.js";
import { Readable } from "node:stream";
import { MAX_AUDIO_BYTES, parseTranscribeRequest } from "../../services/ai/transcribe-request.js";
import { takeBytes } from "../../services/gateway/bytes-field.js";
import { resolveTranscriptionTarget } from "../../services/ai/transcription-provider.js";
import { rejectionOf, thrownServiceError } from "../support/service-errors.js";

const WAV = Buffer.concat([Buffer.from("RIFF"), Buffer.from([36, 0, 0, 0]), Buffer.from("WAVEfmt "), Buffer.alloc(64, 1)]);
const b64 = (buf: Buffer) => buf.toString("base64");

describe("audio content types", () => {
	test("parameters and case are ignored", () => {
		expect(essence("Audio/WebM; codecs=opus")).toBe("audio/webm");
	});

	test("derived from the extension", () => {
		expect(typeFromFilename("memo.M4A")).toBe("audio/x-m4a");
		expect(typeFromFilename("memo.mp3")).toBe("audio/mpeg");
		expect(typeFromFilename("memo")).toBeUndefined();
		expect(typeFromFilename("memo.txt")).toBeUndefined();
	});

	test("given, else from the filename, else sniffed", async () => {
		expect(await resolveAudioType("audio/ogg", "x.mp3", WAV)).toBe("audio/ogg");
		expect(await resolveAudioType("", "x.flac", WAV)).toBe("audio/flac");
		expect(await resolveAudioType("", "", WAV)).toBe("audio/wav");
		expect(await resolveAudioType("", "", Buffer.from("plain text"))).toBeUndefined();
	});

	test("a filename for nameless audio carries the format's extension", () => {
		expect(defaultFilename("audio/mpeg")).toBe("audio.mp3");
		expect(defaultFilename("audio/webm")).toBe("audio.webm");
		expect(defaultFilename("audio/x-m4a")).toBe("audio.m4a");
	});
});

/** The request as the ai action receives it: the gateway has moved `audio.content` into the call stream. */
async function transcribeRequest(params: Record<string, unknown>) {
	const bytes = takeBytes(params, "audio.content");
	return parseTranscribeRequest(params, bytes ? Readable.from([bytes], { objectMode: false }) : null);
}

describe("TranscribeRequest checks, in the contract's order", () => {
	test("a valid request decodes the bytes once and keeps name and type", async () => {
		const audio = await transcribeRequest({ audio: { content: b64(WAV), filename: "memo.wav", content_type: "audio/mpeg" } });
		expect(audio.bytes.equals(WAV)).toBe(true);
		expect(audio).toMatchObject({ filename: "memo.wav", contentType: "audio/mpeg" });
	});

	test.each([
		["audio missing", {}, "audio is required"],
		["uri before empty content", { audio: { uri: "gs://x", content: "" } }, "uri"],
		["empty content before a bad filename", { audio: { content: "", filename: "x".repeat(300) } }, "content"],
		["too large before a bad filename", { audio: { content: "A".repeat(Math.ceil(((MAX_AUDIO_BYTES + 3) * 4) / 3)), filename: "x".repeat(300) } }, "25 MiB"],
		["filename before the content type", { audio: { content: b64(WAV), filename: "x".repeat(256), contentType: "text/plain" } }, "filename"],
		["unsupported type", { audio: { content: b64(WAV), contentType: "image/png" } }, "image/png"],
		["content of the wrong JSON type", { audio: { content: 12 } }, "content"]
	])("%s", async (_name, params, fragment) => {
		const err = await rejectionOf(transcribeRequest(params));
		expect(err.type).toBe("INVALID_ARGUMENT");
		expect(err.message).toContain(fragment);
	});

	test("a filename of 255 characters is accepted (code points, not UTF-16 units), 256 refused", async () => {
		const name = `${"🎙".repeat(251)}.wav`;
		expect((await transcribeRequest({ audio: { content: b64(WAV), filename: name } })).filename).toBe(name);
		const err = await rejectionOf(transcribeRequest({ audio: { content: b64(WAV), filename: `x${name}` } }));
		expect(err.message).toBe("audio.filename must be at most 255 characters");
	});

	test("nameless audio gets a filename from its type; the type given wins over the bytes", async () => {
		expect(await transcribeRequest({ audio: { content: b64(WAV) } })).toMatchObject({ filename: "audio.wav", contentType: "audio/wav" });
		expect(await transcribeRequest({ audio: { content: b64(WAV), contentType: "audio/mpeg" } })).toMatchObject({ filename: "audio.mp3", contentType: "audio/mpeg" });
	});

	test.each([
		["uri", { uri: 7 }, "audio.uri must be a string"],
		["uri set", { uri: "gs://bucket/a.wav" }, "audio.uri is not supported; send the bytes in audio.content"],
		["filename", { filename: 7 }, "audio.filename must be a string"],
		["contentType", { contentType: 7 }, "audio.contentType must be a string"],
		["unsupported", { contentType: "text/plain" }, 'audio.contentType "text/plain" is not a supported audio type']
	])("a wrong %s says so", async (_name, fields, message) => {
		const err = await rejectionOf(transcribeRequest({ audio: { content: b64(WAV), ...fields } }));
		expect(err.type).toBe("INVALID_ARGUMENT");
		expect(err.message).toBe(message);
	});

	test.each([
		["audio that is no message", { audio: "x" }, "audio must be a JSON object"],
		["no content", { audio: { filename: "a.wav" } }, "audio.content must not be empty"],
		["empty content", { audio: { content: "", filename: "a.wav" } }, "audio.content must not be empty"],
		["bytes of no known type, unnamed and untyped", { audio: { content: b64(Buffer.from("plain words, not audio")) } }, "audio.contentType is missing and cannot be derived"]
	])("%s: its exact refusal", async (_name, params, message) => {
		const err = await rejectionOf(transcribeRequest(params));
		expect({ type: err.type, message: err.message }).toEqual({ type: "INVALID_ARGUMENT", message });
	});

	test("exactly 25 MiB is accepted", async () => {
		const audio = await transcribeRequest({ audio: { content: b64(Buffer.alloc(MAX_AUDIO_BYTES)), filename: "a.wav" } });
		expect(audio.bytes.length).toBe(MAX_AUDIO_BYTES);
	});
});

describe("provider resolution from the AI setting", () => {
	const providers = [
		{ id: "oa", title: "OpenAI", type: "OPENAI", endpoint: "http://127.0.0.1:9/v1//", apiKey: "k" },
		{ id: "gm", title: "Gemini", type: "GEMINI", endpoint: "", apiKey: "g" }
	];

	test("no providerId, an unknown provider and GEMINI are FAILED_PRECONDITION", () => {
		expect(thrownServiceError(() => resolveTranscriptionTarget({ providers })).message).toBe("transcription is not configured");
		expect(thrownServiceError(() => resolveTranscriptionTarget({ providers, transcription: { providerId: "" } })).type).toBe("FAILED_PRECONDITION");
		expect(thrownServiceError(() => resolveTranscriptionTarget({ providers, transcription: { providerId: "zz" } })).type).toBe("FAILED_PRECONDITION");
		expect(thrownServiceError(() => resolveTranscriptionTarget({ providers, transcription: { providerId: "gm" } })).type).toBe("FAILED_PRECONDITION");
	});

	test("OPENAI: trailing slashes dropped, model defaults to whisper-1", () => {
		expect(resolveTranscriptionTarget({ providers, transcription: { providerId: "oa", model: "", language: "de", prompt: "" } })).toEqual({
			endpoint: "http://127.0.0.1:9/v1",
			apiKey: "k",
			model: "whisper-1",
			language: "de",
			prompt: ""
		});
	});
});
